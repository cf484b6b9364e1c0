// POST /api/transactions/refund-request (spec §4.3): JSON {transID, refundAmount, public_key}.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { DECIMAL_AMOUNT_PATTERN } from './patterns.js';
import { DECIMAL_AMOUNT } from './s2s-schema.js';

const AMOUNT_HINT = 'a decimal amount greater than 0 with at most 2 decimals and at most 99999999.99, e.g. "5.00"';

/** spec §2.4 request fields. Unknown fields are ignored, as on /api/s2s. */
export const refundRequestSchema = lazySchema(() =>
  z.object({
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
  }),
);
