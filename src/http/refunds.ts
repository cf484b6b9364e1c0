// POST /api/transactions/refund-request (spec §4.3): JSON {transID, refundAmount, public_key}; the
// answer carries exactly the spec §2.4 fields. The rules live in services/s2s-refunds.ts.
import { Hono } from 'hono';
import type { AppDeps, AppEnv } from './app-env.js';
import { terminalWithPublicKey } from './terminal-auth.js';
import { validJson } from './validation.js';
import { s2sRefundView, toS2SRefundView } from '../views/s2s.js';
import { refundRequestSchema } from '../contracts/s2s-refunds.js';
import type { OpenApiRoute } from './openapi/route.js';

/** The refund-request route. */
export function refundRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { services } = deps;

  app.post('/api/transactions/refund-request', async (c) => {
    const input = await validJson(c, refundRequestSchema);
    const terminal = terminalWithPublicKey(services, input.public_key);
    const accepted = services.s2sRefunds.request({ transId: input.transID, refundAmount: input.refundAmount }, terminal);
    return c.json(toS2SRefundView(accepted.refund, accepted.transaction, accepted.left));
  });

  return app;
}

/** The routes of this module, for /openapi.json. */
export const refundsOpenApi: OpenApiRoute[] = [
  {
    method: 'post',
    path: '/api/transactions/refund-request',
    tag: 'S2S',
    auth: 'terminal',
    summary: 'Refund all or part of an approved S2S transaction (spec §4.3)',
    body: refundRequestSchema,
    response: 'the spec §2.4 fields, order_status 8 Request Processed',
    responseSchema: s2sRefundView,
    errors: ['invalid_credentials', 'resource_missing', 'amount_too_large', 'not_refundable'],
  },
];
