// Durability: an answer leaves only once the writes it reports are committed (group commit,
// src/store/group-commit.ts). An error answer while the open batch holds no write (bad input or
// credentials, refused before anything was written, whose write gate only took the lock) cannot
// report one: it leaves at once instead of waiting a turn of the loop for an empty commit.
// The request is handled in batch.answering(), so committed() waits for (and fails with) the
// batches its own writes went into, not whichever is open when it asks.
import type { MiddlewareHandler } from 'hono';
import type { Services } from '../../services/services.js';

/** Holds each answer until the batch holding its writes has committed. */
export function durableAnswer(services: Services): MiddlewareHandler {
  const { batch } = services;
  return (c, next) =>
    batch.answering(async () => {
      await next();
      if (c.res.status >= 400 && !batch.written()) return;
      await batch.committed();
    });
}
