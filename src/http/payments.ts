// The bearer payment API's payments (spec §4.5, 2.6): create, show, list, capture, cancel.
import { Hono } from 'hono';
import type { Payments } from '../services/payments.js';
import type { Payment } from '../store/payments-repo.js';
import type { AppDeps, AppEnv } from './app-env.js';
import { currentMerchant } from './middleware/bearer-auth.js';
import type { OpenApiRoute } from './openapi/route.js';
import { cancelPaymentSchema, capturePaymentSchema, createPaymentSchema, listPaymentsQuery } from '../contracts/v1-payments.js';
import { listOf, listView } from '../views/list.js';
import { paymentView, toPaymentView } from '../views/payment.js';
import { validateQuery, validJson, validOptionalJson } from './validation.js';
import { validatedInput } from './prevalidation.js';

/** The payment object of every answer; next_action is the 3-D Secure page while it waits. */
const paymentObject = (payments: Payments, payment: Payment) => toPaymentView(payment, payments.nextActionUrl(payment));

/** The payment routes, for /openapi.json. */
export const paymentsOpenApi: OpenApiRoute[] = [
  {
    method: 'post',
    path: '/v1/payments',
    summary:
      'Create a card payment (card, token or the default test card); answers authorized, declined or requires_action with next_action',
    tag: 'Payments',
    auth: 'bearer',
    body: createPaymentSchema,
    response: 'the payment as authorized (spec §2.6); with capture true it is captured right after, in the same request',
    responseSchema: paymentView,
    errors: ['parameter_unknown', 'resource_missing'],
  },
  {
    method: 'get',
    path: '/v1/payments',
    summary: 'List payments, newest first, with status and created filters',
    tag: 'Payments',
    auth: 'bearer',
    query: listPaymentsQuery,
    response: 'a list of payments',
    responseSchema: listOf(paymentView),
    errors: ['parameter_unknown', 'resource_missing'],
  },
  {
    method: 'get',
    path: '/v1/payments/:id',
    summary: 'Show a payment',
    tag: 'Payments',
    auth: 'bearer',
    response: 'the payment',
    responseSchema: paymentView,
  },
  {
    method: 'post',
    path: '/v1/payments/:id/capture',
    summary: 'Capture all or part of an authorized payment; the rest of the authorization is released',
    tag: 'Payments',
    auth: 'bearer',
    // No body, or {} / {"amount": n}: the route reads an empty body as {} (readOptionalJson).
    body: capturePaymentSchema,
    bodyOptional: true,
    response: 'the captured payment',
    responseSchema: paymentView,
    errors: ['invalid_state', 'amount_too_large', 'parameter_unknown'],
  },
  {
    method: 'post',
    path: '/v1/payments/:id/cancel',
    summary: 'Cancel a payment that is not captured (authorized, requires_action or processing)',
    tag: 'Payments',
    auth: 'bearer',
    // No body, or {}: the route reads an empty body as {} (readOptionalJson).
    body: cancelPaymentSchema,
    bodyOptional: true,
    response: 'the canceled payment',
    responseSchema: paymentView,
    errors: ['invalid_state', 'parameter_unknown'],
  },
];

/** The /v1/payments routes (behind bearerAuth). */
export function paymentRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { payments } = deps.services;

  app.post('/v1/payments', async (c) => {
    const input = validatedInput(c, 'POST /v1/payments', createPaymentSchema) ?? (await validJson(c, createPaymentSchema));
    // A body the front thread did not validate was read after an await: tie the writes to this answer again (durable-answer.ts).
    const created = deps.services.batch.within(c.get('answer'), () =>
      payments.create(currentMerchant(c), input, deps.forcedScript(c, 'v1', input, undefined)),
    );
    return c.json(paymentObject(payments, created.answer));
  });

  app.get('/v1/payments', (c) => {
    const query = validateQuery(c, listPaymentsQuery);
    const gte = query['created[gte]'];
    const lte = query['created[lte]'];
    const page = payments.list({
      merchantId: currentMerchant(c).id,
      status: query.status,
      createdGte: gte === undefined ? undefined : gte * 1000,
      // Inclusive of the whole second named.
      createdLte: lte === undefined ? undefined : lte * 1000 + 999,
      limit: query.limit ?? 10,
      startingAfter: query.starting_after,
    });
    return c.json(listView(page, (p) => paymentObject(payments, p)));
  });

  app.get('/v1/payments/:id', (c) => c.json(paymentObject(payments, payments.get(currentMerchant(c).id, c.req.param('id')))));

  app.post('/v1/payments/:id/capture', async (c) => {
    const input = await validOptionalJson(c, capturePaymentSchema);
    return c.json(paymentObject(payments, payments.capture(currentMerchant(c).id, c.req.param('id'), input.amount)));
  });

  app.post('/v1/payments/:id/cancel', async (c) => {
    await validOptionalJson(c, cancelPaymentSchema);
    return c.json(paymentObject(payments, payments.cancel(currentMerchant(c).id, c.req.param('id'))));
  });

  return app;
}
