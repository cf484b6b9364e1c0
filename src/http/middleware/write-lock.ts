// Takes the database's write lock for a request that may write, before its handler runs. While
// another process holds the lock, the request waits with timers (GroupCommit.ready()) and the
// server keeps answering everything else; after LOCK_WAIT_MS it answers 503 database_busy.
import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app-env.js';
import type { Services } from '../../services/services.js';

/** Methods whose handlers write; GETs only read, and WAL reads never wait for a writer. */
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Waits (without blocking the loop) until the shared batch holds the write lock, then runs the handler. */
export function writeLock(services: Services): MiddlewareHandler<AppEnv> {
  const { batch } = services;
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!WRITES.has(c.req.method)) return next();
    // Read the body first: the handler then gets it from Hono's cache within this turn, so its
    // transaction runs before the batch taken here commits. A body that cannot be read is the
    // handler's to report (the cached rejection reaches it unchanged). The bytes, not text():
    // Hono derives every later read from the first one cached, and text() would have replaced
    // bytes that are not UTF-8 before bodyText() could refuse them.
    await c.req.arrayBuffer().catch(() => undefined);
    await batch.ready();
    return next();
  });
}
