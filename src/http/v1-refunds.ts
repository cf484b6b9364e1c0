// The bearer payment API's refunds: POST /v1/refunds, GET /v1/refunds/{id}, GET /v1/refunds.
import { Hono } from 'hono';
import type { V1Refund } from '../store/v1-refunds-repo.js';
import type { AppDeps, AppEnv } from './app.js';
import { currentMerchant } from './middleware/bearer-auth.js';
import type { OpenApiRoute } from './openapi.js';
import { createRefundSchema, listRefundsQuery, refundListSchema, refundObjectSchema } from '../contracts/v1-refunds.js';
import { readJson, validateQuery } from './validation.js';
import { validate } from '../contracts/validate.js';

/** The refund object of every answer. */
export function refundObject(refund: V1Refund) {
  return {
    id: refund.id,
    object: 'refund' as const,
    payment_id: refund.paymentId,
    amount: refund.amount,
    currency: refund.currency,
    reason: refund.reason,
    status: refund.status,
    failure_reason: refund.failureReason,
    created_at: new Date(refund.createdAt).toISOString(),
    updated_at: new Date(refund.updatedAt).toISOString(),
  };
}

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
    responseSchema: refundObjectSchema,
    errors: ['resource_missing', 'not_refundable', 'amount_too_large', 'parameter_unknown'],
  },
  { method: 'get', path: '/v1/refunds', summary: "List refunds, newest first, optionally one payment's", tag: 'Refunds', auth: 'bearer', query: listRefundsQuery, response: 'a list of refunds', responseSchema: refundListSchema, errors: ['parameter_unknown', 'resource_missing'] },
  { method: 'get', path: '/v1/refunds/:id', summary: 'Show a refund', tag: 'Refunds', auth: 'bearer', response: 'the refund', responseSchema: refundObjectSchema },
];

/** The /v1/refunds routes (behind bearerAuth). */
export function v1RefundRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { v1Refunds } = deps.services;

  app.post('/v1/refunds', async (c) => {
    const input = validate(createRefundSchema, await readJson(c));
    return c.json(refundObject(v1Refunds.create(currentMerchant(c).id, input)));
  });

  app.get('/v1/refunds', (c) => {
    const query = validateQuery(c, listRefundsQuery);
    const page = v1Refunds.list({ merchantId: currentMerchant(c).id, paymentId: query.payment_id, limit: query.limit ?? 10, startingAfter: query.starting_after });
    return c.json({ object: 'list' as const, data: page.data.map(refundObject), has_more: page.hasMore });
  });

  app.get('/v1/refunds/:id', (c) => c.json(refundObject(v1Refunds.get(currentMerchant(c).id, c.req.param('id')))));

  return app;
}
