// Warm-up requests run through the app before a sandbox is handed to a test suite, so its first
// real request does not pay for compiling the shared request path (Hono's router is built on the
// first match, and V8 compiles each function on its first call): routing, the middleware chain, the
// control guard, bearer authentication, body reading and the error answer. Each is chosen to change
// nothing: a read, and two creates refused before anything is written (no key; a body that is not a
// JSON object, so no terminal credentials either, and no API fault rule can match and be used up).
// Neither reaches its route's schema: a schema is built on its route's first real request
// (src/lazy-schema.ts), so a suite that never sends an S2S payment never builds the S2S schema. They
// are not logged.
import type { SandboxApp } from './app.js';
import { WARM_UP } from './middleware/request-context.js';

const JSON_POST = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };
/** A JSON array: read and parsed, then refused as not an object, before validation. */
const ARRAY_POST = { ...JSON_POST, body: '[]' };

/** The requests, in-process: a GET of the control API and two creates refused before any write. */
const REQUESTS: Array<[string, RequestInit]> = [
  ['http://127.0.0.1/_sandbox/health', { headers: { host: '127.0.0.1' } }],
  ['http://127.0.0.1/v1/payments', JSON_POST],
  ['http://127.0.0.1/api/s2s', ARRAY_POST],
];

/** Runs the warm-up requests one after another (their answers are read and dropped). */
export async function warmUp(app: SandboxApp): Promise<void> {
  for (const [url, init] of REQUESTS) {
    const res = await app.request(url, init, { [WARM_UP]: true });
    await res.arrayBuffer();
  }
}
