// The bearer payment API's refunds: POST /v1/refunds, GET /v1/refunds/{id}, GET /v1/refunds.
import { Hono } from 'hono';
import type { AppDeps, AppEnv } from './app-env.js';
import { currentMerchant } from './middleware/bearer-auth.js';
import type { OpenApiRoute } from './openapi/route.js';
import { createRefundSchema, listRefundsQuery } from '../contracts/v1-refunds.js';
import { listOf, listView } from '../views/list.js';
import { refundView, toRefundView } from '../views/refund.js';
import { validateQuery, validJson } from './validation.js';

/** The refund routes, for /openapi.json. */
export const v1RefundsOpenApi: OpenApiRoute[] = [
  {
    method: 'post',
    path: '/v1/refunds',
    summary: 'Refund all or part of what is left of a captured payment; pending, then succeeded or failed',
    tag: 'Refunds',
    auth: 'bearer',
    body: createRefundSchema,
    response: 'the refund, status pending',
    responseSchema: refundView,
    errors: ['resource_missing', 'not_refundable', 'amount_too_large', 'parameter_unknown'],
  },
  {
    method: 'get',
    path: '/v1/refunds',
    summary: "List refunds, newest first, optionally one payment's",
    tag: 'Refunds',
    auth: 'bearer',
    query: listRefundsQuery,
    response: 'a list of refunds',
    responseSchema: listOf(refundView),
    errors: ['parameter_unknown', 'resource_missing'],
  },
  {
    method: 'get',
    path: '/v1/refunds/:id',
    summary: 'Show a refund',
    tag: 'Refunds',
    auth: 'bearer',
    response: 'the refund',
    responseSchema: refundView,
  },
];

/** The /v1/refunds routes (behind bearerAuth). */
export function v1RefundRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { v1Refunds } = deps.services;

  app.post('/v1/refunds', async (c) => {
    const input = await validJson(c, createRefundSchema);
    return c.json(toRefundView(v1Refunds.create(currentMerchant(c).id, input)));
  });

  app.get('/v1/refunds', (c) => {
    const query = validateQuery(c, listRefundsQuery);
    const page = v1Refunds.list({
      merchantId: currentMerchant(c).id,
      paymentId: query.payment_id,
      limit: query.limit ?? 10,
      startingAfter: query.starting_after,
    });
    return c.json(listView(page, toRefundView));
  });

  app.get('/v1/refunds/:id', (c) => c.json(toRefundView(v1Refunds.get(currentMerchant(c).id, c.req.param('id')))));

  return app;
}
