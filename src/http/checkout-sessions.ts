// The checkout session API (spec §4.4): POST /v1/checkout/sessions, GET one, POST .../expire.
// Bearer-authenticated by the /v1/* middleware, which sets c.get('merchant').
import { Hono } from 'hono';
import type { AppDeps, AppEnv } from './app-env.js';
import { currentMerchant } from './middleware/bearer-auth.js';
import type { OpenApiRoute } from './openapi/route.js';
import { checkoutSessionSchema } from '../contracts/v1-checkout.js';
import type { CheckoutSession } from '../store/checkout-sessions-repo.js';
import { checkoutSessionView, toCheckoutSessionView } from '../views/checkout-session.js';
import { toPaymentView } from '../views/payment.js';
import { validJson } from './validation.js';

/** The /v1/checkout/sessions routes. */
export function checkoutSessionRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { services } = deps;
  const sessions = services.checkout;
  // The session with its payment's current status, as the API shows the payment.
  const view = (session: CheckoutSession) => {
    const payment = sessions.paymentOf(session);
    const status = payment && toPaymentView(payment, services.payments.nextActionUrl(payment)).status;
    return toCheckoutSessionView(session, services.publicUrl(), status);
  };

  app.post('/v1/checkout/sessions', async (c) => {
    const input = await validJson(c, checkoutSessionSchema);
    const session = sessions.create(currentMerchant(c), input);
    return c.json(view(session));
  });

  app.get('/v1/checkout/sessions/:id', (c) => c.json(view(sessions.get(currentMerchant(c).id, c.req.param('id')))));

  app.post('/v1/checkout/sessions/:id/expire', (c) => c.json(view(sessions.expire(currentMerchant(c).id, c.req.param('id')))));

  return app;
}

/** The OpenAPI description of these routes. */
export const checkoutSessionsOpenApi: OpenApiRoute[] = [
  {
    method: 'post',
    path: '/v1/checkout/sessions',
    summary: 'Create a hosted checkout session; redirect the customer to its url',
    tag: 'Checkout',
    auth: 'bearer',
    body: checkoutSessionSchema,
    response: 'the open session, with its single-use url and expires_at',
    responseSchema: checkoutSessionView,
  },
  {
    method: 'get',
    path: '/v1/checkout/sessions/:id',
    summary: 'Show a checkout session: open, complete (with payment_id) or expired',
    tag: 'Checkout',
    auth: 'bearer',
    response: 'the session as it is now',
    responseSchema: checkoutSessionView,
  },
  {
    method: 'post',
    path: '/v1/checkout/sessions/:id/expire',
    summary: 'End an open checkout session now; its url answers 410 afterwards',
    tag: 'Checkout',
    auth: 'bearer',
    response: 'the expired session (checkout.session.expired is published)',
    responseSchema: checkoutSessionView,
    errors: ['invalid_state'],
  },
];
