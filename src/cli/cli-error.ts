// An error a CLI user can fix: one line on stderr and exit code 1; with --json, one JSON object on
// stderr instead ({"error":{"code","message"}}, the API's own error object when the sandbox gave
// one), so a script reads stdout as JSON and stderr as JSON. The codes the CLI adds of its own are
// CLI_ERROR_CODES (the control client's own among them); errors from the sandbox keep the API's
// codes (docs/errors.md).
import { SandboxError } from '../errors.js';
import { ClientError, CLIENT_ERROR_CODES, type ClientErrorBody } from '../client/client-error.js';

/** The codes of failures the CLI finds itself, before or instead of an answer from a sandbox. */
export const CLI_ERROR_CODES = {
  usage: 'the command line is wrong: an unknown command or option, a missing argument',
  ...CLIENT_ERROR_CODES,
  start_failed: 'sandbox start could not start (a busy port, an unwritable database, bad fixtures)',
} as const;

/** One of CLI_ERROR_CODES. */
export type CliErrorCode = keyof typeof CLI_ERROR_CODES;

/** The error object of --json mode: the API's fields when the sandbox answered with an error. */
export type CliErrorBody = ClientErrorBody;

/** A user-facing CLI failure; the control client's failures (ClientError, ApiError) are handled alike. */
export class CliError extends ClientError {
  constructor(message: string, code: CliErrorCode = 'invalid_input') {
    super(message, code);
    this.name = 'CliError';
  }
}

/** True when the command line asks for --json (before a `--` that ends the options). */
export function jsonRequested(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

/** The --json error object of a user error (a CliError, a SandboxError of the start options, a StartError); `message` is its one line. */
export function errorBody(err: unknown, message: string): CliErrorBody {
  if (err instanceof ClientError) return err.body();
  if (err instanceof SandboxError)
    return { type: err.type, code: err.code, message: err.message, ...(err.param ? { param: err.param } : {}) };
  const code: CliErrorCode = (err as NodeJS.ErrnoException).code === 'ECONNREFUSED' ? 'sandbox_unreachable' : 'start_failed';
  return { code, message };
}
