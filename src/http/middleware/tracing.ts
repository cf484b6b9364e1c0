// W3C Trace Context on the way in (docs/tracing.md): a request with a valid traceparent is handled
// in its trace (runtime/trace-scope.ts), so the events it records, and every webhook about them,
// join it. With --otlp, each API request (/api, /v1) is also a server span, a child of the
// caller's span when a traceparent came, and the events and webhooks are its children. A missing
// or malformed traceparent is ignored, as the specification says: the request is answered as any.
import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import { routePath } from 'hono/route';
import { incomingTrace } from '../../domain/traceparent.js';
import { inTraceScope } from '../../runtime/trace-scope.js';
import type { Tracer } from '../../runtime/tracing.js';
import type { AppEnv } from '../app-env.js';
import { isWarmUp } from './request-context.js';
import { cachedBody } from './answer-body.js';

/** The merchant's API: the requests that get a span of their own. */
const API = /^\/(?:api|v1)\//;
/** A /v1/ payment id in a path, the payment a request that recorded no event was about. */
const PATH_ID = /\/(pay_[A-Za-z0-9]+)/;
/** The payment an answer names (a create that recorded no event: a 3-D Secure one waits for its challenge). */
const ANSWER_ID = /"transID"\s*:\s*"?(\d+)|"id"\s*:\s*"(pay_[A-Za-z0-9]+)"/;

/** Runs each request in its caller's trace, and (with --otlp) as a server span of it. */
export function tracing(tracer: Tracer): MiddlewareHandler<AppEnv> {
  return createMiddleware<AppEnv>(async (c, next) => {
    const incoming = incomingTrace(c.req.header('traceparent'), c.req.header('tracestate'));
    const spanned = tracer.exporting && API.test(c.req.path) && !isWarmUp(c);
    if (!spanned) {
      if (incoming) await inTraceScope(incoming, next);
      else await next();
      return;
    }
    const { method, path } = c.req;
    const span = tracer.start(method, 'server', incoming ?? null, { 'http.request.method': method, 'url.path': path });
    let objects: readonly string[] = [];
    try {
      // The request's events and webhooks are children of this span; the caller's tracestate goes on with them.
      ({ objects } = await inTraceScope({ ...span.context, state: incoming?.state ?? null }, next));
    } finally {
      const route = routePath(c, -1);
      const named = ANSWER_ID.exec(cachedBody(c.res) ?? '');
      const paymentId = objects[0] ?? PATH_ID.exec(path)?.[1] ?? named?.[1] ?? named?.[2];
      const status = c.res.status;
      span.set({
        'http.route': route,
        'http.response.status_code': status,
        ...(paymentId === undefined ? {} : { 'paysandbox.payment.id': paymentId }),
      });
      // The name OpenTelemetry's HTTP conventions give a server span: method and route template.
      span.rename(`${method} ${route}`);
      span.end(status >= 500 ? `answered ${status}` : undefined);
    }
  });
}
