// POST /v1/refunds, the refund list query and the refund object. Descriptions are the hints in
// error messages and the OpenAPI text.
import * as z from 'zod';
import { listOf, listQueryFields, minorAmount } from './v1-common.js';

/** Why a refund is made (the familiar three). */
export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;

/** POST /v1/refunds. */
export const createRefundSchema = z.strictObject({
  payment_id: z.string().min(1).max(64).describe('the id of a captured payment, e.g. "pay_3kTMd9Qx81LbZc0a"'),
  amount: minorAmount('the amount to refund, at most what is left (default: all that is left)').optional(),
  reason: z.enum(REFUND_REASONS).optional().describe('one of "duplicate", "fraudulent", "requested_by_customer"'),
});

/** A validated refund request. */
export type CreateRefundInput = z.output<typeof createRefundSchema>;

/** GET /v1/refunds query. */
export const listRefundsQuery = z.strictObject({
  ...listQueryFields,
  payment_id: z.string().min(1).max(64).optional().describe("only this payment's refunds"),
});

/** The refund object. */
export const refundObjectSchema = z.object({
  id: z.string().describe('rfd_...'),
  object: z.literal('refund'),
  payment_id: z.string(),
  amount: z.number().int().describe('minor units'),
  currency: z.string(),
  reason: z.enum(REFUND_REASONS).nullable(),
  status: z.enum(['pending', 'succeeded', 'failed']).describe('pending, then succeeded or failed 2 s (sandbox time) later'),
  failure_reason: z.string().nullable(),
  created_at: z.string().describe('ISO 8601 UTC'),
  updated_at: z.string().describe('ISO 8601 UTC'),
});

/** GET /v1/refunds answer. */
export const refundListSchema = listOf(refundObjectSchema);
