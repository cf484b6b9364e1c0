// Which request the code running now works for: the journal middleware runs each request inside
// a scope, and the outbox stamps each event with the request that made it, so a payment's
// timeline names the request that caused a change instead of guessing from times (many requests
// share one millisecond). A scope is closed once its request is answered: a timer the request
// armed (the job scheduler's wake-up) inherits the scope, and what it runs later is not the
// request's doing.
import { AsyncLocalStorage } from 'node:async_hooks';

interface Scope {
  readonly requestId: string;
  open: boolean;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Runs `fn` (a request's handling) as the work of request `requestId`; the scope closes when it settles. */
export async function inRequestScope<T>(requestId: string, fn: () => Promise<T>): Promise<T> {
  const scope: Scope = { requestId, open: true };
  try {
    return await scopes.run(scope, fn);
  } finally {
    scope.open = false;
  }
}

/** The request being answered that the running code works for; null outside one (a job, the worker, a timer). */
export function currentRequestId(): string | null {
  const scope = scopes.getStore();
  return scope?.open ? scope.requestId : null;
}
