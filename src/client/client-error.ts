// What goes wrong between a client of the control API (the CLI's commands, the MCP server's tools)
// and a sandbox: one error with a catalogue code and a line a person can act on. ApiError keeps the
// sandbox's own error body (its code and message name the field and the fix). The CLI prints these
// as one line (cli-error.ts), the MCP server as a tool error (mcp/tool-results.ts).

/** The codes of failures a client finds itself, before or instead of an answer from a sandbox. */
export const CLIENT_ERROR_CODES = {
  invalid_input: 'a flag or argument has a value the command refuses (checked before any request)',
  sandbox_unreachable: 'nothing answers at --url',
  not_a_sandbox: 'something answers at --url, but not a sandbox control API',
  certificate_untrusted: 'an --https sandbox answers at --url with a certificate this process does not trust (set NODE_EXTRA_CA_CERTS)',
  stream_broken: 'the activity stream of the sandbox ended while the command read it',
} as const;

/** The error object of a client's failure: the API's fields when the sandbox answered with an error. */
export interface ClientErrorBody {
  code: string;
  message: string;
  [field: string]: unknown;
}

/** A failure a user can fix, found by a client of the control API. */
export class ClientError extends Error {
  constructor(
    message: string,
    readonly code: string = 'invalid_input',
  ) {
    super(message);
    this.name = 'ClientError';
  }

  /** The error object a JSON answer carries under "error". */
  body(): ClientErrorBody {
    return { code: this.code, message: this.message };
  }
}

/** The sandbox answered with its error body; the text line adds the status and code, body() keeps it as it came. */
export class ApiError extends ClientError {
  constructor(
    readonly status: number,
    readonly error: ClientErrorBody,
  ) {
    super(`${error.message} (${status} ${error.code})`, error.code);
    this.name = 'ApiError';
  }

  override body(): ClientErrorBody {
    return this.error;
  }
}
