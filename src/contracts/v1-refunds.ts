// POST /v1/refunds and the refund list query (the refund object is src/views/refund.ts). Descriptions are the hints in
// error messages and the OpenAPI text.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { listQueryFields, minorAmount } from './v1-common.js';
import { REFUND_REASONS } from '../domain/vocabularies.js';

/** POST /v1/refunds. */
export const createRefundSchema = lazySchema(() =>
  z.strictObject({
    payment_id: z.string().min(1).max(64).describe('the id of a captured payment, e.g. "pay_3kTMd9Qx81LbZc0a"'),
    amount: minorAmount('the amount to refund, at most what is left (default: all that is left)').optional(),
    reason: z
      .enum(REFUND_REASONS)
      .optional()
      .describe(`one of ${REFUND_REASONS.map((reason) => JSON.stringify(reason)).join(', ')}`),
  }),
);

/** A validated refund request. */
export type CreateRefundInput = z.output<ReturnType<typeof createRefundSchema>>;

/** GET /v1/refunds query. */
export const listRefundsQuery = lazySchema(() =>
  z.strictObject({
    ...listQueryFields(),
    payment_id: z.string().min(1).max(64).optional().describe("only this payment's refunds"),
  }),
);
