// The one error type of the sandbox and the catalogue of every code it can carry.
// Routes throw SandboxError; http/on-error.ts turns it into the docs/decisions.md body:
// {"error":{"type","code","message","param","request_id"}}. A code's HTTP status and
// type live here and nowhere else, so docs/errors.md is generated from this table.

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'idempotency_error'
  | 'rate_limit_error'
  | 'api_error';

interface CatalogueEntry {
  status: 400 | 401 | 403 | 404 | 405 | 409 | 410 | 413 | 422 | 429 | 500 | 502 | 503 | 504 | 507;
  type: ErrorType;
  /** When the code is used, for the docs. */
  when: string;
}

/** Every error code the sandbox returns. */
export const ERROR_CATALOGUE = {
  invalid_json: { status: 400, type: 'invalid_request_error', when: 'the body is not valid JSON' },
  invalid_encoding: {
    status: 400,
    type: 'invalid_request_error',
    when: 'the body is not valid UTF-8 (bytes that would otherwise be silently replaced)',
  },
  unsupported_content_type: {
    status: 400,
    type: 'invalid_request_error',
    when: 'the Content-Type is not the one the endpoint takes',
  },
  parameter_missing: { status: 400, type: 'invalid_request_error', when: 'a required field is absent or empty' },
  parameter_invalid: { status: 400, type: 'invalid_request_error', when: 'a field has the wrong type, format or value' },
  parameter_unknown: { status: 400, type: 'invalid_request_error', when: 'a field the endpoint does not take was sent' },
  decryption_failed: {
    status: 400,
    type: 'invalid_request_error',
    when: 'encrypted_data could not be decrypted; the message says why',
  },
  authentication_required: {
    status: 401,
    type: 'authentication_error',
    when: 'no credential was sent (Authorization header, public_key or terNO)',
  },
  invalid_credentials: {
    status: 401,
    type: 'authentication_error',
    when: 'the API key is unknown, or terNO and public_key do not name the same terminal',
  },
  live_key_rejected: { status: 401, type: 'authentication_error', when: 'an sk_live_ key was sent' },
  control_forbidden: {
    status: 401,
    type: 'authentication_error',
    when: 'the control API was called from a non-loopback address without the control token',
  },
  host_not_allowed: {
    status: 403,
    type: 'invalid_request_error',
    when: 'a /_sandbox request named a Host that is not loopback, the host of --public-url or an --allowed-host (DNS rebinding)',
  },
  cross_site_refused: {
    status: 403,
    type: 'invalid_request_error',
    when: 'a browser sent a state-changing /_sandbox request from another origin (Sec-Fetch-Site or Origin)',
  },
  resource_missing: {
    status: 404,
    type: 'not_found_error',
    when: "no such object for this merchant (another merchant's object looks the same)",
  },
  route_not_found: { status: 404, type: 'not_found_error', when: 'no endpoint at that method and path' },
  method_not_allowed: {
    status: 405,
    type: 'invalid_request_error',
    when: 'the path exists but not with this method; the Allow header lists the methods it takes',
  },
  reference_in_use: {
    status: 409,
    type: 'conflict_error',
    when: 'a payment with this reference already exists on the terminal',
  },
  invalid_state: {
    status: 409,
    type: 'conflict_error',
    when: 'the object is in a state that does not allow the operation; the message names the state',
  },
  authorization_expired: {
    status: 409,
    type: 'conflict_error',
    when: 'the authorization of a payment made with capture: false lapsed uncaptured (7 days of sandbox time, --authorization-lifetime); nothing can be captured',
  },
  terminal_in_use: {
    status: 409,
    type: 'conflict_error',
    when: "POST /_sandbox/merchants named a terNO or public_key that another terminal already has, or a public_key that ends another terminal's or ends with one (encrypted_data could not tell them apart); or every terNO a created merchant can get is taken",
  },
  merchant_seeded: {
    status: 409,
    type: 'conflict_error',
    when: 'DELETE /_sandbox/merchants/{id} named a merchant of the fixtures, which is never deleted (reset it instead)',
  },
  idempotency_key_reused: {
    status: 409,
    type: 'idempotency_error',
    when: 'an Idempotency-Key was reused with a different body or endpoint',
  },
  idempotency_key_in_progress: {
    status: 409,
    type: 'idempotency_error',
    when: 'a request with the same Idempotency-Key is still being processed',
  },
  body_too_large: { status: 413, type: 'invalid_request_error', when: 'the body is larger than the limit (1 MiB)' },
  body_incomplete: {
    status: 400,
    type: 'invalid_request_error',
    when: 'a chunked body was cut off (the connection closed mid-body) or its chunk sizes are malformed',
  },
  amount_too_large: {
    status: 422,
    type: 'invalid_request_error',
    when: 'a refund or capture asks for more than is left; the message says how much is left',
  },
  not_refundable: {
    status: 422,
    type: 'invalid_request_error',
    when: 'the transaction or payment is not in a refundable state',
  },
  not_allowed: { status: 422, type: 'invalid_request_error', when: 'well-formed, but the rules forbid it' },
  rate_limited: { status: 429, type: 'rate_limit_error', when: 'too many requests' },
  internal_error: { status: 500, type: 'api_error', when: 'a bug in the sandbox; never caused by bad input' },
  database_busy: {
    status: 503,
    type: 'api_error',
    when: 'another connection held the SQLite write lock for the whole 1 s a write waits for it (another process writing to the same --db, or a starved disk); the server answers everything else meanwhile; nothing was changed: retry after the Retry-After seconds',
  },
  start_failed: {
    status: 503,
    type: 'api_error',
    when: 'the request came while the sandbox was starting, and the start failed (its output says why: the database in use or unreadable, bad fixtures); the sandbox then stops listening, so a retry needs a new start',
  },
  injected_rate_limit: {
    status: 429,
    type: 'rate_limit_error',
    when: 'X-Sandbox-Fault: status=429 (or a standing API fault rule) asked for it; nothing was changed: retry after the Retry-After seconds with the same Idempotency-Key (docs/api-faults.md)',
  },
  injected_server_error: {
    status: 500,
    type: 'api_error',
    when: 'X-Sandbox-Fault: status=500 (or a standing API fault rule) asked for it; nothing was changed: retry with the same Idempotency-Key (docs/api-faults.md)',
  },
  injected_bad_gateway: {
    status: 502,
    type: 'api_error',
    when: 'X-Sandbox-Fault: status=502 (or a standing API fault rule) asked for it; nothing was changed: retry with the same Idempotency-Key (docs/api-faults.md)',
  },
  injected_unavailable: {
    status: 503,
    type: 'api_error',
    when: 'X-Sandbox-Fault: status=503 (or a standing API fault rule) asked for it; nothing was changed: retry after the Retry-After seconds with the same Idempotency-Key (docs/api-faults.md)',
  },
  injected_gateway_timeout: {
    status: 504,
    type: 'api_error',
    when: 'X-Sandbox-Fault: status=504 (or a standing API fault rule) asked for it; nothing was changed here, but a real 504 may come after the work was done: reconcile before retrying without a key (docs/api-faults.md)',
  },
  storage_full: {
    status: 507,
    type: 'api_error',
    when: 'the disk holding the --db file is full (SQLite reported SQLITE_FULL); nothing was changed and reads still work. 507 Insufficient Storage rather than 503: it lasts until someone frees space, so an automatic retry does not help and no Retry-After is sent',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The error every layer throws; `param` names the offending field when there is one. */
export class SandboxError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly status: CatalogueEntry['status'];
  readonly type: ErrorType;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, param?: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'SandboxError';
    this.code = code;
    this.param = param;
    this.status = ERROR_CATALOGUE[code].status;
    this.type = ERROR_CATALOGUE[code].type;
    this.headers = headers;
  }
}

/** The JSON body of an error answer, as documented in docs/errors.md. */
export interface ErrorBody {
  error: { type: ErrorType; code: ErrorCode; message: string; param?: string; request_id: string };
}

/** Builds the documented error body for a SandboxError. */
export function errorBody(err: SandboxError, requestId: string): ErrorBody {
  const error: ErrorBody['error'] = { type: err.type, code: err.code, message: err.message, request_id: requestId };
  if (err.param !== undefined) error.param = err.param;
  return { error };
}

/** The message of anything thrown: an Error's message, or the thrown value as text (a thrown string says itself, not "undefined"). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A start-up failure worth one clear line (port in use, database in use, unwritable db, bad fixtures): the CLI prints it, the library rejects with it. */
export class StartError extends Error {}

/**
 * `value`, which the caller knows is there (a row it wrote or checked a moment ago, a flag it read
 * before): when it is not, that is a bug in the sandbox, so it throws (an internal_error) rather than
 * carry undefined on.
 */
export function present<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null) throw new Error(`${what} is missing`);
  return value;
}
