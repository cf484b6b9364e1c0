// A chargeback (dispute) as the control API shows it, for both families.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { Chargeback } from '../store/chargebacks-repo.js';
import { CHARGEBACK_REASONS, CHARGEBACK_STATUSES, PAYMENT_FAMILIES } from '../domain/vocabularies.js';
import { iso, isoTime } from './time.js';

/** A chargeback. */
export const chargebackView = lazySchema(() =>
  z
    .object({
      id: z.string().describe('dp_...'),
      object: z.literal('chargeback'),
      merchant_id: z.string(),
      family: z.enum(PAYMENT_FAMILIES).describe('s2s (a transID) or v1 (a pay_... payment)'),
      payment_id: z.string().nullable().describe('the /v1/ payment; null for S2S'),
      transID: z.string().nullable().describe('the S2S transaction; null for /v1/'),
      amount: z.number().int().describe('minor units'),
      currency: z.string(),
      reason: z.enum(CHARGEBACK_REASONS),
      status: z.enum(CHARGEBACK_STATUSES),
      created_at: isoTime,
      updated_at: isoTime,
    })
    .meta({ id: 'Chargeback' }),
);

/** The chargeback's TS type. */
export type ChargebackView = z.infer<ReturnType<typeof chargebackView>>;

/** A chargeback as the control API shows it. */
export function toChargebackView(cb: Chargeback): ChargebackView {
  return {
    id: cb.id,
    object: 'chargeback',
    merchant_id: cb.merchantId,
    family: cb.subjectType,
    payment_id: cb.subjectType === 'v1' ? cb.subjectId : null,
    transID: cb.subjectType === 's2s' ? cb.subjectId : null,
    amount: cb.amount,
    currency: cb.currency,
    reason: cb.reason,
    status: cb.status,
    created_at: iso(cb.createdAt),
    updated_at: iso(cb.updatedAt),
  };
}
