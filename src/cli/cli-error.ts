// An error a CLI user can fix: one line on stderr and exit code 1; with --json, one JSON object on
// stderr instead ({"error":{"code","message"}}, the API's own error object when the sandbox gave
// one), so a script reads stdout as JSON and stderr as JSON. The codes the CLI adds of its own are
// CLI_ERROR_CODES; errors from the sandbox keep the API's codes (docs/errors.md).
import { SandboxError } from '../errors.js';

/** The codes of failures the CLI finds itself, before or instead of an answer from a sandbox. */
export const CLI_ERROR_CODES = {
  usage: 'the command line is wrong: an unknown command or option, a missing argument',
  invalid_input: 'a flag or argument has a value the command refuses (checked before any request)',
  sandbox_unreachable: 'nothing answers at --url',
  not_a_sandbox: 'something answers at --url, but not a sandbox control API',
  certificate_untrusted: 'an --https sandbox answers at --url with a certificate this process does not trust (set NODE_EXTRA_CA_CERTS)',
  stream_broken: 'the activity stream of the sandbox ended while the command read it',
  start_failed: 'sandbox start could not start (a busy port, an unwritable database, bad fixtures)',
} as const;

/** One of CLI_ERROR_CODES. */
export type CliErrorCode = keyof typeof CLI_ERROR_CODES;

/** The error object of --json mode: the API's fields when the sandbox answered with an error. */
export interface CliErrorBody {
  code: string;
  message: string;
  [field: string]: unknown;
}

/** A user-facing CLI failure. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: CliErrorCode = 'invalid_input',
  ) {
    super(message);
    this.name = 'CliError';
  }

  /** What --json mode prints under "error". */
  body(): CliErrorBody {
    return { code: this.code, message: this.message };
  }
}

/** The sandbox answered with its error body; the text line adds the status and code, --json keeps the body as it came. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly error: CliErrorBody,
  ) {
    super(`${error.message} (${status} ${error.code})`);
    this.name = 'ApiError';
  }

  override body(): CliErrorBody {
    return this.error;
  }
}

/** True when the command line asks for --json (before a `--` that ends the options). */
export function jsonRequested(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

/** The --json error object of a user error (a CliError, a SandboxError of the start options, a StartError); `message` is its one line. */
export function errorBody(err: unknown, message: string): CliErrorBody {
  if (err instanceof CliError) return err.body();
  if (err instanceof SandboxError)
    return { type: err.type, code: err.code, message: err.message, ...(err.param ? { param: err.param } : {}) };
  const code: CliErrorCode = (err as NodeJS.ErrnoException).code === 'ECONNREFUSED' ? 'sandbox_unreachable' : 'start_failed';
  return { code, message };
}
