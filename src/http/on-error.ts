// The one mapping from errors to answers: SandboxError -> its catalogue status and the documented
// body; a database lock that outlasted the wait -> 503 database_busy; a full disk -> 507
// storage_full; anything else is a bug -> 500 with the same shape and the request id to report.
// The customer pages (/authenticate/, /pay/) answer the same errors as HTML pages (docs/errors.md).
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { SandboxError, errorBody } from '../errors.js';
import type { Logger } from '../runtime/logger.js';
import type { AppEnv } from './app-env.js';
import { ErrorPage } from '../pages/error-page.js';
import { isDatabaseBusy, isStorageFull } from '../store/open-database.js';

/** The body the answer carries for `err` (and its status), for JSON routes and pages alike. */
export function toSandboxError(err: unknown, dbPath = 'the --db file'): SandboxError {
  if (err instanceof SandboxError) return err;
  if (err instanceof HTTPException && err.status === 413)
    return new SandboxError('body_too_large', 'the body is larger than 1 MiB; send a smaller request');
  // SQLite gave up waiting for a lock: the request's transaction was rolled back, so a retry is safe.
  if (isDatabaseBusy(err)) {
    return new SandboxError(
      'database_busy',
      'the sandbox database stayed locked for 1 s (is another process writing to the same --db file?); nothing was changed, retry the request',
      undefined,
      { 'Retry-After': '1' },
    );
  }
  // SQLite rolled the write back, so nothing was changed; reads go on working meanwhile.
  if (isStorageFull(err)) {
    return new SandboxError(
      'storage_full',
      `the disk holding the sandbox database (${dbPath}) is full; nothing was changed. Free space on that disk (delete files you no longer need there) or restart with --db on a disk with room, then retry the request`,
    );
  }
  return new SandboxError('internal_error', 'the sandbox hit a bug; the request id identifies it in the log. Please report it.');
}

/** Hono onError handler. */
export function createOnError(logger: Logger, dbPath?: string) {
  return (err: Error, c: Context<AppEnv>) => {
    const sandboxError = toSandboxError(err, dbPath);
    const requestId = c.get('requestId') ?? 'req_unknown';
    // The stack goes as a field: the logger escapes the message and indents the frames, so a path cannot forge lines.
    if (sandboxError.code === 'internal_error')
      logger.error(`500 on ${c.req.method} ${c.req.path} (${requestId}): ${err.message}`, { stack: err.stack });
    return errorAnswer(c, sandboxError);
  };
}

/** Paths a browser opens: the page at authurl and the hosted checkout page, with everything under them. */
export const CUSTOMER_PAGE = /^\/(authenticate|pay)(\/|$)/;

/** The answer to an error: its status and headers, with the documented JSON body, or an HTML page on a customer page's path. */
export function errorAnswer(c: Context<AppEnv>, error: SandboxError): Response | Promise<Response> {
  const requestId = c.get('requestId') ?? 'req_unknown';
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  if (CUSTOMER_PAGE.test(c.req.path)) return c.html(ErrorPage({ error, requestId }), error.status);
  return c.json(errorBody(error, requestId), error.status);
}
