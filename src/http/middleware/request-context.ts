// Gives each request an id (echoed as X-Request-Id and in error bodies) and logs one line for it.
import type { Context, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app-env.js';
import { newId } from '../../domain/ids.js';
import type { Logger } from '../../runtime/logger.js';

/** Set in the env of a warm-up request (app.request's third argument, http/warm-up.ts): no log line and no journal row for it. */
export const WARM_UP = 'paysandboxWarmUp';

/** Whether this is one of the sandbox's own warm-up requests (which no user made). */
export function isWarmUp(c: Context<AppEnv>): boolean {
  return (c.env as Record<string, unknown> | undefined)?.[WARM_UP] === true;
}

/** Request id + access log. */
export function requestContext(logger: Logger): MiddlewareHandler<AppEnv> {
  return createMiddleware<AppEnv>(async (c, next) => {
    const requestId = newId('req');
    c.set('requestId', requestId);
    const started = performance.now();
    // Set before the response exists, so it is built with the header: setting a header on a
    // finished response makes Hono copy it into a stream, which costs ~20% of a create.
    c.header('X-Request-Id', requestId);
    await next();
    // Responses built by hand (idempotent replays) did not take the prepared header.
    if (!c.res.headers.has('X-Request-Id')) c.header('X-Request-Id', requestId);
    if (isWarmUp(c)) return;
    logger.request({
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: performance.now() - started,
      requestId,
      fault: c.get('fault'),
    });
  });
}
