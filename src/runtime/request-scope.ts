// Which request the code running now works for: the outbox stamps each event with the request that
// made it, so a payment's timeline names the request that caused a change instead of guessing from
// times. The scope is the synchronous part of a request's handling only: the journal middleware
// runs `next()` inside it, and a create's handler writes before its first await (its body was read
// and validated on the front thread). What runs after an await is stamped as "some request's" and
// the timeline reads its cause from the times of the requests about the payment; a timed job
// (job-runner.ts) runs as no request's.
//
// Not AsyncLocalStorage: on Node 20 it turns on async hooks for every promise of the process, which
// cost about a third of the main thread's CPU per create while the main thread still parsed HTTP
// (bench/compare-builds.js), and between nothing and a seventh since (bench/async-hooks-cost.js).

/** Stamped on work that runs outside any request's synchronous handling: a request's, after an await, or the sandbox's own. */
export const SOME_REQUEST = '';

/** The request whose synchronous handling runs now; null inside a timed job; SOME_REQUEST elsewhere. */
let current: string | null = SOME_REQUEST;

/** Runs `fn` (a request's handling, up to its first await) as the work of request `requestId`, or of no request (null: a timed job). */
export function inRequestScope<T>(requestId: string | null, fn: () => T): T {
  const outer = current;
  current = requestId;
  try {
    return fn();
  } finally {
    current = outer;
  }
}

/** The request the running code works for: its id, null for a timed job, SOME_REQUEST when not known (see above). */
export function currentRequestId(): string | null {
  return current;
}
