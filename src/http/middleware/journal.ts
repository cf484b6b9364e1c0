// The request journal's one middleware: after the answer is made, it hands the request and its
// answer to the journal service (services/journal/journal.ts), which masks them and writes them
// with the other requests of this turn. Registered right inside durableAnswer, so the row joins the
// batch that holds the request's own writes, and it sees every answer: a refusal of the control
// guard, a 401, an injected fault, an idempotent replay.
//
// Not kept: reads of the journal itself (a tail would fill it with its own polling), the activity
// stream, static assets, the dashboard's live fragments (refetched on every change), a payment's
// page in the dashboard (a view of the journal: each look would add itself to the payment's timeline),
// and the sandbox's own warm-up requests.
import type { Context, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { JournalSurface } from '../../store/journal-repo.js';
import type { Services } from '../../services/services.js';
import type { AppEnv } from '../app-env.js';
import { bodyText } from '../validation.js';
import { answerHeader, answerText } from './answer-body.js';
import { authenticatedMerchant } from './request-merchant.js';
import { inRequestScope } from '../../runtime/request-scope.js';
import { isWarmUp } from './request-context.js';

/** Requests the journal leaves out (see above). */
const NOT_KEPT =
  /^\/_sandbox\/(?:requests(?:\/|$)|payments\/[^/]+\/timeline$|stream$|assets\/|dashboard\/(?:payments\/|(?:.+\/)?fragment$))|^\/assets\//;
/** Requests whose body is not kept (the control token of the sign-in form; a whole snapshot), and answers likewise (a snapshot holds every credential). */
const BODY_NOT_KEPT = new Set(['/_sandbox/login', '/_sandbox/import']);
const ANSWER_NOT_KEPT = new Set(['/_sandbox/export']);
/** Methods that carry a body. */
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Answers kept as text: JSON and plain text (pages are HTML, long and rebuilt from state; a stream never ends). */
const TEXT_ANSWER = /^(?:application\/(?:[\w.+-]*\+)?json|text\/plain)/i;

function surfaceOf(path: string): JournalSurface {
  if (path.startsWith('/_sandbox')) return 'control';
  if (path.startsWith('/authenticate/') || path.startsWith('/pay/')) return 'page';
  return 'api';
}

/** The request body as text, or null when there is none or it cannot be read (already refused, not UTF-8). */
async function requestText(c: Context<AppEnv>): Promise<string | null> {
  if (!WITH_BODY.has(c.req.method) || BODY_NOT_KEPT.has(c.req.path)) return null;
  try {
    return await bodyText(c);
  } catch {
    return null;
  }
}

/** The answer as the journal keeps it: JSON or text as it is, a redirect as its Location, anything else by its type only. */
async function answerOf(c: Context<AppEnv>): Promise<{ type: string | null; body: string | null }> {
  const res = c.res;
  const status = res.status;
  const location = status >= 300 && status < 400 ? answerHeader(res, 'location') : null;
  if (location !== null) return { type: 'redirect', body: location };
  const type = answerHeader(res, 'content-type');
  if (type === null || !TEXT_ANSWER.test(type) || status === 204 || status === 304 || ANSWER_NOT_KEPT.has(c.req.path))
    return { type, body: null };
  return { type: (type.split(';')[0] ?? type).trim(), body: await answerText(c) };
}

/** The merchant the request's credentials name: the bearer key's, or an S2S body's terminal; null when none (found later from its ids). */
function merchantOf(services: Services, c: Context<AppEnv>, body: string | null): string | null {
  if (c.var.merchant) return c.var.merchant.id;
  if (!c.req.path.startsWith('/api/')) return null;
  return authenticatedMerchant(services, c, body ?? '') ?? null;
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
    await inRequestScope(c.var.requestId, next);
    const durationMs = performance.now() - started;
    const requestBody = await requestText(c);
    const answer = await answerOf(c);
    const url = c.req.url;
    const q = url.indexOf('?');
    recorder.record({
      id: c.var.requestId,
      merchantId: merchantOf(services, c, requestBody),
      surface: surfaceOf(path),
      method: c.req.method,
      path,
      query: q < 0 ? '' : url.slice(q + 1),
      status: c.res.status,
      durationMs,
      startedAt,
      endedAt: clock.now(),
      wallAt,
      idempotencyKey: c.req.header('idempotency-key') ?? null,
      headers: c.req.raw.headers,
      requestBody,
      responseType: answer.type,
      responseBody: answer.body,
      fault: c.var.fault ?? null,
      script: c.var.script ?? null,
    });
  });
}
