// The control API's settlement requests: POST /_sandbox/settlements and the query of its list
// (http/control/disputes.ts).
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { DURATION_PATTERN } from './patterns.js';
import { parseDuration } from '../domain/duration.js';
import { orList, SETTLEMENT_STATUSES } from '../domain/vocabularies.js';
import { currencyCode, queryInteger } from './v1-common.js';

const limit = lazySchema(() => queryInteger(1, 1000).optional().describe('a whole number from 1 to 1000 (default 50)'));
const merchant = lazySchema(() => z.string().min(1).optional().describe('a merchant id such as mer_sandbox'));

/** POST /_sandbox/settlements body (optional). */
export const settleSchema = lazySchema(() =>
  z.strictObject({
    merchant: merchant(),
    currency: currencyCode().optional().describe('an ISO 4217 currency code such as "EUR" (default: every currency)'),
    pay_after: z
      .string()
      .refine((text) => parseDuration(text) !== undefined, { message: 'pay_after must be a duration such as "2d", "1h" or "0s"' })
      .meta({ pattern: DURATION_PATTERN })
      .optional()
      .describe('sandbox time until the payout (settlement.paid), a duration such as "2d", "1h" or "0s" for at once (default 2d)'),
  }),
);

/** GET /_sandbox/settlements query. */
export const settlementQuery = lazySchema(() =>
  z.strictObject({
    status: z.enum(SETTLEMENT_STATUSES).optional().describe(orList(SETTLEMENT_STATUSES)),
    merchant: merchant(),
    limit: limit(),
  }),
);
