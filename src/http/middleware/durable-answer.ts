// Durability: an answer leaves only once the writes it reports are committed (group commit,
// src/store/group-commit.ts). An error answer while the open batch holds no write (bad input or
// credentials, refused before anything was written, whose write gate only took the lock) cannot
// report one: it leaves at once instead of waiting a turn of the loop for an empty commit.
// The request is handled in batch.answering(), and its route's handler within() the answer's trail
// (answerScope), so committed(trail) waits for (and fails with) the batches its own writes went
// into, not whichever is open when it asks. The trail is carried on the context (c.get('answer')),
// not in AsyncLocalStorage: on Node 20 that turns on async hooks for every promise of the process,
// up to 14 % of a create's CPU in the runs measured (group-commit.ts).
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.js';
import type { Services } from '../../services/services.js';

/** Holds each answer until the batch holding its writes has committed. */
export function durableAnswer(services: Services): MiddlewareHandler<AppEnv> {
  const { batch } = services;
  return (c, next) =>
    batch.answering(async (trail) => {
      c.set('answer', trail);
      await next();
      if (c.res.status >= 400 && !batch.written()) return;
      await batch.committed(trail);
    });
}

/**
 * Runs the route's handler, up to its first await, within its answer's trail, so the units it
 * writes there tie that answer precisely. Registered last before the routes: the middleware ahead
 * of it await (the write lock, idempotency), and the tie reaches no further than the synchronous
 * call it wraps. A write after an await is tied to every answer in handling (group-commit.ts).
 */
export function answerScope(services: Services): MiddlewareHandler<AppEnv> {
  const { batch } = services;
  return (c, next) => batch.within(c.get('answer'), next);
}
