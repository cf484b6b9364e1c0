// The /v1/ refund object.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { REFUND_REASONS, REFUND_STATUSES } from '../domain/vocabularies.js';
import type { V1Refund } from '../store/v1-refunds-repo.js';
import { iso, isoTime } from './time.js';

/** The refund object. */
export const refundView = lazySchema(() =>
  z
    .object({
      id: z.string().describe('rfd_...'),
      object: z.literal('refund'),
      payment_id: z.string(),
      amount: z.number().int().describe('minor units'),
      currency: z.string().describe('ISO 4217, upper case'),
      reason: z.enum(REFUND_REASONS).nullable(),
      status: z.enum(REFUND_STATUSES).describe('pending, then succeeded or failed 2 s (sandbox time) later'),
      failure_reason: z.string().nullable(),
      created_at: isoTime,
      updated_at: isoTime,
    })
    .meta({ id: 'Refund' }),
);

/** The refund object's TS type. */
export type RefundView = z.infer<ReturnType<typeof refundView>>;

/** The refund object of every refund answer. */
export function toRefundView(refund: V1Refund): RefundView {
  return {
    id: refund.id,
    object: 'refund',
    payment_id: refund.paymentId,
    amount: refund.amount,
    currency: refund.currency,
    reason: refund.reason as RefundView['reason'],
    status: refund.status,
    failure_reason: refund.failureReason,
    created_at: iso(refund.createdAt),
    updated_at: iso(refund.updatedAt),
  };
}
