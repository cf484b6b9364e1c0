// The request journal's one middleware: after the answer is made, it hands the request and its
// answer to the journal service (services/journal/journal.ts), which masks them and writes them
// with the other requests of this turn. Registered right inside durableAnswer, so the row joins the
// batch that holds the request's own writes, and it sees every answer: a refusal of the control
// guard, a 401, an injected fault, an idempotent replay.
//
// Not kept: reads of the journal itself (a tail would fill it with its own polling), the activity
// stream, static assets, the dashboard's live fragments (refetched on every change), a payment's
// page in the dashboard (a view of the journal: each look would add itself to the payment's timeline),
// and the sandbox's own warm-up requests. A health check that answered 200 is not kept either: test
// suites and CI poll it for readiness, often every few milliseconds, and each kept poll would push an
// older request (a payment's) out of the bounded journal; a refused one (401) is kept.
import type { Context, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { Services } from '../../services/services.js';
import type { AppEnv } from '../app-env.js';
import { bodyText } from '../validation.js';
import { answerHeader, answerText } from './answer-body.js';
import { authenticatedMerchant } from './request-merchant.js';
import { inRequestScope } from '../../runtime/request-scope.js';
import { isWarmUp } from './request-context.js';
import { answerKept, type JournalNote, keepsRequestBody, requestRecord, surfaceOf } from '../../services/journal/journal-row.js';
import { frontBody, noteForFront } from '../prevalidation.js';

/** Requests the journal leaves out (see above). */
const NOT_KEPT =
  /^\/_sandbox\/(?:requests(?:\/|$)|payments\/[^/]+\/timeline$|stream$|assets\/|dashboard\/(?:payments\/|(?:.+\/)?fragment$))|^\/assets\//;

/** The readiness check: kept only when it did not answer 200 (see above). */
const HEALTH = '/_sandbox/health';

/** The request body as text, or null when there is none or it cannot be read (already refused, not UTF-8). */
async function requestText(c: Context<AppEnv>): Promise<string | null> {
  if (!keepsRequestBody(c.req.method, c.req.path)) return null;
  try {
    return await bodyText(c);
  } catch {
    return null;
  }
}

/** The answer as the journal keeps it (journal-row.ts answerKept). */
async function answerOf(c: Context<AppEnv>): Promise<{ type: string | null; body: string | null }> {
  const kept = answerKept(c.req.path, c.res.status, (name) => answerHeader(c.res, name));
  return { type: kept.type, body: kept.text ? await answerText(c) : kept.body };
}

/** The merchant the request's credentials name: the bearer key's, or an S2S body's terminal; null when none (found later from its ids). */
function merchantOf(services: Services, c: Context<AppEnv>, body: string | null): string | null {
  const merchant = c.get('merchant');
  if (merchant) return merchant.id;
  if (!c.req.path.startsWith('/api/')) return null;
  return authenticatedMerchant(services, c, body ?? '') ?? null;
}

/**
 * Runs the route's handler, up to its first await, as the work of its request (runtime/request-scope.ts),
 * so the events it publishes name the request for the payment's timeline. Registered last before the
 * routes: the middleware ahead of it await (the write lock, API faults), and a scope reaches no further
 * than the synchronous call it wraps; a create's handler writes before any await of its own.
 */
export function requestScope(): MiddlewareHandler<AppEnv> {
  return (c, next) => inRequestScope(c.get('requestId'), next);
}

/** Records every request (but those above) in the request journal, once answered. */
export function journal(services: Services): MiddlewareHandler<AppEnv> {
  const { journal: recorder, clock } = services;
  return createMiddleware<AppEnv>(async (c, next) => {
    const path = c.req.path;
    // The sandbox's own warm-up requests (http/warm-up.ts) are no one's: not kept.
    if (NOT_KEPT.test(path) || isWarmUp(c)) return next();
    const started = performance.now();
    const startedAt = clock.now();
    const wallAt = Date.now();
    await next();
    if (path === HEALTH && c.res.status === 200) return;
    const durationMs = performance.now() - started;
    const note: JournalNote = {
      id: c.get('requestId'),
      merchantId: null,
      surface: surfaceOf(path),
      path,
      status: c.res.status,
      durationMs,
      startedAt,
      endedAt: clock.now(),
      wallAt,
      fault: c.get('fault') ?? null,
      script: c.get('script') ?? null,
    };
    // Through the front thread: it holds the request's bytes and is handed the answer's, so it
    // builds and masks the row and hands back only the row to write (journal-row.ts).
    const front = frontBody(c);
    if (front) {
      note.merchantId = merchantOf(services, c, front.text);
      if (noteForFront(c, note)) return;
    }
    const requestBody = await requestText(c);
    const answer = await answerOf(c);
    const url = c.req.url;
    const q = url.indexOf('?');
    note.merchantId = merchantOf(services, c, requestBody);
    recorder.record(
      requestRecord(note, {
        method: c.req.method,
        query: q < 0 ? '' : url.slice(q + 1),
        idempotencyKey: c.req.header('idempotency-key') ?? null,
        headers: c.req.raw.headers,
        requestBody,
        responseType: answer.type,
        responseBody: answer.body,
      }),
    );
  });
}
