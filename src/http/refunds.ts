// POST /api/transactions/refund-request (spec §4.3): JSON {transID, refundAmount, public_key}; the
// answer carries exactly the spec §2.4 fields. The rules live in services/s2s-refunds.ts.
import { Hono } from 'hono';
import * as z from 'zod';
import { SandboxError } from '../errors.js';
import type { AppDeps, AppEnv } from './app-env.js';
import { terminalWithPublicKey } from './terminal-auth.js';
import { readJson } from './validation.js';
import { validate } from '../contracts/validate.js';
import { toS2SRefundView } from '../views/s2s.js';
import { DECIMAL_AMOUNT } from '../contracts/s2s-schema.js';
import { DECIMAL_AMOUNT_PATTERN } from '../contracts/patterns.js';

const AMOUNT_HINT = 'a decimal amount greater than 0 with at most 2 decimals and at most 99999999.99, e.g. "5.00"';

/** spec §2.4 request fields. Unknown fields are ignored, as on /api/s2s. */
export const refundRequestSchema = z.object({
  transID: z
    .union([z.string().trim().min(1).max(64), z.number().int().positive().transform(String)])
    .describe('the transID of the payment to refund, as returned by /api/s2s'),
  refundAmount: z
    .union([z.string().trim(), z.number().transform(String)])
    .refine((text) => DECIMAL_AMOUNT.test(text), `refundAmount must be ${AMOUNT_HINT}`)
    // As bill_amt: the pattern holds text to it, and a JSON number is read as its decimal text.
    .meta({ pattern: DECIMAL_AMOUNT_PATTERN, exclusiveMinimum: 0, maximum: 99999999.99 })
    .describe(AMOUNT_HINT),
  public_key: z.string().min(1).describe('the public_key of the terminal the payment was made on, e.g. "pk_test_1001"'),
});

/** The refund-request route. */
export function refundRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { services } = deps;

  app.post('/api/transactions/refund-request', async (c) => {
    const input = validate(refundRequestSchema, await readJson(c));
    const terminal = terminalWithPublicKey(services, input.public_key);
    const accepted = services.s2sRefunds.request({ transId: input.transID, refundAmount: input.refundAmount }, terminal);
    return c.json(toS2SRefundView(accepted.refund, accepted.transaction, accepted.left));
  });

  return app;
}
