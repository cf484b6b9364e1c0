// The control API's chargeback requests: POST /_sandbox/chargebacks and the query of its list
// (http/control/disputes.ts).
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { CHARGEBACK_REASONS, CHARGEBACK_STATUSES, orList } from '../domain/vocabularies.js';
import { queryInteger } from './v1-common.js';

const limit = lazySchema(() => queryInteger(1, 1000).optional().describe('a whole number from 1 to 1000 (default 50)'));
const merchant = lazySchema(() => z.string().min(1).optional().describe('a merchant id such as mer_sandbox'));

/** POST /_sandbox/chargebacks body: exactly one of transID / payment_id. */
export const openChargebackSchema = lazySchema(() =>
  z
    .strictObject({
      transID: z
        .string()
        .regex(/^\d{1,32}$/)
        .optional()
        .describe('the S2S transID of an approved transaction, e.g. "412345678901234"'),
      payment_id: z
        .string()
        .regex(/^pay_[A-Za-z0-9]{1,64}$/)
        .optional()
        .describe('the id of a captured /v1/ payment, e.g. "pay_3kTMd9Qx81LbZc0a"'),
      reason: z
        .enum(CHARGEBACK_REASONS)
        .optional()
        .describe(`one of ${CHARGEBACK_REASONS.join(', ')} (default fraudulent)`),
      amount: z
        .number()
        .int()
        .positive()
        .max(99_999_999_999)
        .optional()
        .describe('the disputed amount in minor units, e.g. 1050 for EUR 10.50 (default: all that is not refunded)'),
    })
    // Exactly one of the two, in JSON Schema terms.
    .meta({ oneOf: [{ required: ['transID'] }, { required: ['payment_id'] }] })
    .superRefine((body, ctx) => {
      if (body.transID === undefined && body.payment_id === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['payment_id'],
          message:
            'payment_id or transID is required: send {"payment_id":"pay_..."} for a /v1/ payment or {"transID":"..."} for an S2S transaction',
        });
      if (body.transID !== undefined && body.payment_id !== undefined)
        ctx.addIssue({ code: 'custom', path: ['transID'], message: 'send either transID or payment_id, not both' });
    }),
);

/** GET /_sandbox/chargebacks query. */
export const chargebackQuery = lazySchema(() =>
  z.strictObject({
    status: z.enum(CHARGEBACK_STATUSES).optional().describe(orList(CHARGEBACK_STATUSES)),
    payment: z.string().optional().describe('a /v1/ payment id or S2S transID'),
    merchant: merchant(),
    limit: limit(),
  }),
);
