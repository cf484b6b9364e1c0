// The busiest creates' bodies, parsed and validated on the front thread (server/front/) before the
// request reaches the main thread, the one SQLite writer: the route then takes the validated input
// instead of parsing and validating the body itself. The checks are readJson's and the route's
// schema, the same code: a body that fails any of them goes over without an input, and the route
// reads and validates it on the main thread as ever, so its error answer is the one it always gave.
import type { Context } from 'hono';
import type * as z from 'zod';
import { loneSurrogatePath, tooDeepPath } from '../contracts/json-shape.js';
import { createPaymentSchema } from '../contracts/v1-payments.js';
import { s2sPaymentSchema } from '../contracts/s2s-schema.js';
import type { LazySchema } from '../lazy-schema.js';
import type { JournalNote } from '../services/journal/journal-row.js';

/** The routes whose bodies the front thread validates, by "METHOD /path", and their schemas. */
const ROUTES: Record<string, LazySchema> = {
  'POST /v1/payments': createPaymentSchema,
  'POST /api/s2s': s2sPaymentSchema,
};

/** Builds the prevalidated routes' schemas now (src/lazy-schema.ts): the front thread does it while nothing waits on it, not on its first create. */
export function buildPrevalidationSchemas(): void {
  for (const schema of Object.values(ROUTES)) schema();
}

/** A prevalidated route's name. */
export type PrevalidatedRoute = 'POST /v1/payments' | 'POST /api/s2s';

/** What the front thread read of a request's body, carried on the request the main thread runs. */
export interface FrontBody {
  /** The body decoded as UTF-8; null when it was not UTF-8, or there was none. */
  text: string | null;
  /** The body's input for `route`, validated by its schema. */
  validated: { route: string; input: unknown } | null;
}

/** node:http's pair as the main thread's requests from the front thread carry it: the incoming side holds `front`, and takes the journal's note. */
type FrontEnv =
  | { incoming?: { front?: FrontBody; journal?: JournalNote; socket?: { destroyed?: boolean } }; outgoing?: { destroyed?: boolean } }
  | undefined;

const ESCAPED_SURROGATE = /\\u[dD][89a-fA-F]/;

/**
 * On the front thread: the validated input of a body bound for a prevalidated route, or null when
 * the route is another or any check fails (the main thread then makes them and answers the error).
 */
export function prevalidate(
  method: string,
  url: string,
  headers: Record<string, string | string[] | undefined>,
  text: string,
): FrontBody['validated'] {
  const query = url.indexOf('?');
  const route = `${method} ${query === -1 ? url : url.slice(0, query)}`;
  const schema = ROUTES[route]?.();
  if (schema === undefined) return null;
  const type = headers['content-type'];
  // readJson's media type: the part before ';', trimmed, any case.
  if (typeof type !== 'string' || (type.split(';')[0] ?? '').trim().toLowerCase() !== 'application/json' || text.trim() === '') return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  if (ESCAPED_SURROGATE.test(text) && loneSurrogatePath(body)) return null;
  if (tooDeepPath(body)) return null;
  const parsed = schema.safeParse(body);
  return parsed.success ? { route, input: parsed.data } : null;
}

/** The front thread's reading of the request's body, when it came through one. */
export function frontBody(c: Context): FrontBody | undefined {
  return (c.env as FrontEnv)?.incoming?.front;
}

/**
 * Hands the front thread what it needs to build the request's journal row with its answer
 * (journal-row.ts); false when the request did not come through one, or its answer will not reach
 * the thread (the client went, an API fault cut the connection): the main thread builds that row.
 */
export function noteForFront(c: Context, note: JournalNote): boolean {
  const env = c.env as FrontEnv;
  const incoming = env?.incoming;
  if (incoming?.front === undefined || incoming.socket?.destroyed || env?.outgoing?.destroyed) return false;
  incoming.journal = note;
  return true;
}

/** On the main thread: the input the front thread validated for `route`, or undefined (read and validate the body then). */
export function validatedInput<T extends z.ZodType>(c: Context, route: PrevalidatedRoute, _schema: LazySchema<T>): z.output<T> | undefined {
  const validated = frontBody(c)?.validated;
  return validated?.route === route ? (validated.input as z.output<T>) : undefined;
}
