// The text of an answer a middleware keeps (the idempotency store, the request journal), read
// without spending it: @hono/node-server's lightweight Response holds a c.json() body as a string,
// read straight from it; any other answer is read once and replaced by a fresh copy.
import type { Context } from 'hono';

/** The symbol under which @hono/node-server's lightweight Response keeps [status, body, headers]. */
let cacheSlot: symbol | undefined;

/**
 * The body of an answer still held as a string by @hono/node-server's lightweight Response (every
 * c.json() answer on a running server), read without consuming it; undefined for any other answer.
 * text() would first turn the answer into a web-stream Response: about 25 us of CPU a request,
 * measured with a profile of keyed creates.
 */
export function cachedBody(answer: Response): string | undefined {
  cacheSlot ??= Object.getOwnPropertySymbols(answer).find((s) => s.description === 'cache');
  const cache = cacheSlot === undefined ? undefined : (answer as unknown as Record<symbol, unknown>)[cacheSlot];
  const body = Array.isArray(cache) ? cache[1] : undefined;
  return typeof body === 'string' ? body : undefined;
}

/**
 * One header of an answer, read from @hono/node-server's cache as it holds it (a plain object, an
 * array or Headers) when there is one: Response.headers would turn a plain object into Headers,
 * which then costs the server more to write.
 */
export function answerHeader(answer: Response, name: string): string | null {
  cacheSlot ??= Object.getOwnPropertySymbols(answer).find((s) => s.description === 'cache');
  const cache = cacheSlot === undefined ? undefined : (answer as unknown as Record<symbol, unknown>)[cacheSlot];
  const headers = Array.isArray(cache) ? (cache[2] as unknown) : answer.headers;
  if (headers === undefined || headers === null) return null;
  if (headers instanceof Headers) return headers.get(name);
  const lower = name.toLowerCase();
  const entries: Array<[string, string]> = Array.isArray(headers) ? headers : Object.entries(headers as Record<string, string>);
  for (const [key, value] of entries) if (key.toLowerCase() === lower) return String(value);
  return null;
}

/** The answer's body text; an answer not held as a string is read once and c.res replaced by a copy of it. */
export async function answerText(c: Context): Promise<string> {
  const answer = c.res;
  const cached = cachedBody(answer);
  if (cached !== undefined) return cached;
  // Read the answer once and send a fresh copy of it: Response.clone() tees the body through
  // web streams, about 100 us a request against 35 for this.
  const text = await answer.text();
  c.res = undefined; // so Hono takes the copy as it is instead of merging it into the spent answer
  c.res = new Response(text, { status: answer.status, headers: new Headers(answer.headers) });
  return text;
}
