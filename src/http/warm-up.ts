// Warm-up requests run through the app before a sandbox is handed to a test suite, so its first
// real request does not pay for compiling the shared request path (Hono's router is built on the
// first match, and V8 compiles each function on its first call): routing, the middleware chain, the
// control guard, bearer authentication and the error answer. Each is chosen to change nothing: a
// read, and two creates refused before anything is written (no key; an empty body, so no terminal
// credentials either, and no API fault rule can match and be used up).
// None has a body and no answer is read: app.request() builds a web Request, and reading a body
// through it, or an answer through its Response, compiles undici's body streams, which a request
// through the server never runs (@hono/node-server reads the socket and writes the answer's string
// itself); that was two thirds of the warm-up's time. Neither create reaches its route's schema: a
// schema is built on its route's first real request (src/lazy-schema.ts), so a suite that never
// sends an S2S payment never builds the S2S schema. They are not logged.
import type { SandboxApp } from './app.js';
import { WARM_UP } from './middleware/request-context.js';

const EMPTY_POST = { method: 'POST', headers: { 'content-type': 'application/json' } };

/** The requests, in-process: a GET of the control API and two creates refused before any write. */
const REQUESTS: Array<[string, RequestInit]> = [
  ['http://127.0.0.1/_sandbox/health', { headers: { host: '127.0.0.1' } }],
  ['http://127.0.0.1/v1/payments', EMPTY_POST],
  ['http://127.0.0.1/api/s2s', EMPTY_POST],
];

/** Runs the warm-up requests one after another; their answers are JSON strings Hono holds, dropped unread. */
export async function warmUp(app: SandboxApp): Promise<void> {
  for (const [url, init] of REQUESTS) await app.request(url, init, { [WARM_UP]: true });
}
