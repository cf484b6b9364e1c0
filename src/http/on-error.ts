// The one mapping from errors to answers: SandboxError -> its catalogue status and the documented
// body; anything else is a bug -> 500 with the same shape and the request id to report.
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { SandboxError, errorBody } from '../errors.js';
import type { Logger } from '../server/logger.js';

/** The body the answer carries for `err` (and its status), for JSON routes and pages alike. */
export function toSandboxError(err: unknown): SandboxError {
  if (err instanceof SandboxError) return err;
  if (err instanceof HTTPException && err.status === 413) return new SandboxError('body_too_large', 'the body is larger than 1 MiB; send a smaller request');
  return new SandboxError('internal_error', 'the sandbox hit a bug; the request id identifies it in the log. Please report it.');
}

/** Hono onError handler. */
export function createOnError(logger: Logger) {
  return (err: Error, c: Context) => {
    const sandboxError = toSandboxError(err);
    const requestId = (c.get('requestId') as string | undefined) ?? 'req_unknown';
    if (sandboxError.code === 'internal_error') logger.error(`500 on ${c.req.method} ${c.req.path} (${requestId}): ${err.stack ?? err.message}`);
    for (const [name, value] of Object.entries(sandboxError.headers)) c.header(name, value);
    return c.json(errorBody(sandboxError, requestId), sandboxError.status);
  };
}
