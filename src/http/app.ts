// createApp(deps): the whole HTTP surface as one Hono app. Each interface is a sub-app in its own
// module; this file only orders the middleware and mounts them.
import { Hono, type Context } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import { bodyLimit } from './middleware/body-limit.js';
import { SandboxError } from '../errors.js';
import type { AppDeps, AppEnv } from './app-env.js';
import { createOnError, errorAnswer } from './on-error.js';
import { requestContext } from './middleware/request-context.js';
import { s2sRoutes } from './s2s.js';
import { s2sEncryptedRoutes } from './s2s-encrypted.js';
import { refundRoutes } from './refunds.js';
import { bearerAuth } from './middleware/bearer-auth.js';
import { paymentRoutes } from './payments.js';
import { v1RefundRoutes } from './v1-refunds.js';
import { tokenRoutes } from './tokens.js';
import { controlRoutes } from './control/routes.js';
import { scenarioRoutes } from './control/scenarios.js';
import { dashboardRoutes } from './control/dashboard.js';
import { stateRoutes } from './control/state.js';
import { controlDeliveryRoutes } from './control/deliveries.js';
import { controlDisputeRoutes } from './control/disputes.js';
import { controlTokenRoutes } from './control/tokens.js';
import { controlMerchantRoutes } from './control/merchants.js';
import { controlSignatureRoutes } from './control/signatures.js';
import { controlJournalRoutes } from './control/journal.js';
import { controlMcpRoutes } from './control/mcp.js';
import { idempotency } from './middleware/idempotency.js';
import { controlGuard } from './middleware/control-guard.js';
import { writeLock } from './middleware/write-lock.js';
import { answerScope, durableAnswer } from './middleware/durable-answer.js';
import { journal, requestScope } from './middleware/journal.js';
import { apiFaults } from './middleware/api-faults.js';
import { webhookEndpointRoutes } from './webhook-endpoints.js';
import { eventRoutes } from './events.js';
import { openApiRoutes } from './openapi-routes.js';
import { llmsTxtRoutes } from './llms-txt.js';
import { authenticatePages } from './customer-pages/authenticate.js';
import { checkoutSessionRoutes } from './checkout-sessions.js';
import { checkoutPages } from './customer-pages/checkout.js';
import { assetRoutes } from './assets.js';
import { pageHeaders } from './page-headers.js';
import { allowedMethods } from './method-not-allowed.js';
import { tracing } from './middleware/tracing.js';
import { NO_TRACER } from '../runtime/tracing.js';

/** Builds the Hono app of one sandbox. */
export function createApp(deps: AppDeps) {
  // The trie router, named: Hono's default tries its RegExpRouter first, on the first request, and
  // that one cannot take a path segment that is a parameter in one route and a word in another
  // (/_sandbox/deliveries/:id/replay beside /_sandbox/deliveries/retry-failed), so it gave up
  // halfway through the routes and built this one after, on every start.
  const app = new Hono<AppEnv>({ router: new TrieRouter() });
  app.onError(createOnError(deps.logger, deps.config.dbPath));
  const allowedAt = allowedMethods(app.routes);
  app.notFound(notFound(allowedAt));
  app.use('*', requestContext(deps.logger));
  // Before everything that may record an event: a traceparent's trace holds the request's events and webhooks.
  app.use('*', tracing(deps.tracer ?? NO_TRACER));
  // Pages: one policy (page-headers.ts), set ahead of the body limit, so their error pages carry it too;
  // the sign-in page's headers are separate from the control guard.
  app.use('/authenticate/*', pageHeaders('authentication'));
  app.use('/pay/*', pageHeaders('checkout'));
  app.use('/_sandbox/login', pageHeaders('control'));
  app.use('*', durableAnswer(deps.services));
  // Inside durableAnswer: each request's journal row joins the batch of its own writes (journal.ts).
  if (deps.services.journal.enabled) app.use('*', journal(deps.services));
  // One guard for every /_sandbox route (JSON and dashboard), ahead of all of them, import and export
  // included; '/_sandbox/*' also matches '/_sandbox' itself, so it is registered once.
  app.use('/_sandbox/*', controlGuard(deps.config, allowedAt));
  // Before the 1 MiB body limit: snapshots are larger; POST /_sandbox/import sets its own limit.
  app.route('/_sandbox', stateRoutes(deps));
  // Ahead of the body limit and the write lock too: the MCP route holds no lock of its own; its
  // tools' requests come back into this app, each through every middleware as any client's.
  app.route(
    '/_sandbox',
    controlMcpRoutes(deps, (request) => app.fetch(request)),
  );
  app.use(
    '*',
    bodyLimit({
      maxSize: deps.config.bodyLimitBytes,
      onError: () => {
        throw new SandboxError('body_too_large', `the body is larger than ${deps.config.bodyLimitBytes} bytes; send a smaller request`);
      },
    }),
  );
  app.use('/v1/*', bearerAuth(deps.services));
  // After authentication, so a request with a wrong key gets its 401 and never a fault; before the
  // write lock, which is taken for this turn's batch: a request that waits (latency=, timeout)
  // takes it after its wait; before idempotency, so an injected answer stores no key.
  app.use('*', apiFaults(deps));
  app.use('*', writeLock(deps.services));
  app.use('*', idempotency(deps.services));
  // The events a handler publishes name its request, for the timeline (journal.ts requestScope).
  if (deps.services.journal.enabled) app.use('*', requestScope());
  // The handler's writes tie its answer (durable-answer.ts answerScope).
  app.use('*', answerScope(deps.services));
  mountRoutes(app, deps);
  return app;
}

/** The answer to a request no route takes: 405 for a known path asked with another method, else 404. */
function notFound(allowedAt: ReturnType<typeof allowedMethods>) {
  return (c: Context<AppEnv>) => {
    // A known path asked with another method: 405 with the methods it does take.
    const allowed = allowedAt(c.req.path);
    if (allowed.length > 0) {
      const err = new SandboxError(
        'method_not_allowed',
        `${c.req.path} does not take ${c.req.method}; send ${allowed.join(', ')} (see GET /openapi.json)`,
        undefined,
        { Allow: allowed.join(', ') },
      );
      return errorAnswer(c, err);
    }
    return errorAnswer(
      c,
      new SandboxError('route_not_found', `no endpoint ${c.req.method} ${c.req.path}; see GET /openapi.json for every route`),
    );
  };
}

/** Every interface's sub-app, after the middleware, in this order (Hono matches in registration order). */
function mountRoutes(app: Hono<AppEnv>, deps: AppDeps) {
  app.route('/', assetRoutes());
  app.route('/', s2sRoutes(deps));
  app.route('/', s2sEncryptedRoutes(deps));
  app.route('/', refundRoutes(deps));
  app.route('/', paymentRoutes(deps));
  app.route('/', v1RefundRoutes(deps));
  app.route('/', tokenRoutes(deps));
  app.route('/', webhookEndpointRoutes(deps));
  app.route('/', eventRoutes(deps));
  app.route('/', openApiRoutes(deps));
  app.route('/', llmsTxtRoutes());
  app.route('/', authenticatePages(deps));
  app.route('/', checkoutSessionRoutes(deps));
  app.route('/', checkoutPages(deps));
  app.route('/_sandbox', controlRoutes(deps));
  app.route('/_sandbox', scenarioRoutes(deps));
  app.route('/', dashboardRoutes(deps));
  app.route('/_sandbox', controlDeliveryRoutes(deps));
  app.route('/_sandbox', controlDisputeRoutes(deps));
  app.route('/_sandbox', controlTokenRoutes(deps));
  app.route('/_sandbox', controlMerchantRoutes(deps));
  app.route('/_sandbox', controlSignatureRoutes(deps));
  app.route('/_sandbox', controlJournalRoutes(deps));
}

/** The app type, for tests. */
export type SandboxApp = ReturnType<typeof createApp>;
