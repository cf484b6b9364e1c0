// A settlement with its payments and clawbacks, as the control API and the settlement events show it.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { Settlement, SettlementAdjustment, SettlementItem } from '../store/settlements-repo.js';
import { ADJUSTMENT_KINDS, PAYMENT_FAMILIES, SETTLEMENT_STATUSES } from '../domain/vocabularies.js';
import { iso, isoOrNull, isoTime } from './time.js';

const family = lazySchema(() => z.enum(PAYMENT_FAMILIES));
const minor = (hint: string) => z.number().int().describe(`${hint}, in minor units`);

/** A settlement. */
export const settlementView = lazySchema(() =>
  z
    .object({
      id: z.string().describe('st_...'),
      object: z.literal('settlement'),
      merchant_id: z.string(),
      status: z.enum(SETTLEMENT_STATUSES),
      currency: z.string(),
      count: z.number().int().describe('payments carried; 0 when it holds clawbacks only'),
      gross: minor('captured'),
      fees: minor('fees'),
      refunds: minor('refunded before settlement'),
      adjustments: minor('clawbacks (<= 0)'),
      net: minor('paid out'),
      fee_model: z.object({ percent_basis_points: z.number().int(), fixed_per_payment: minor('the fixed fee per payment') }),
      pay_at: isoTime.describe('when the payout is due (settlement.paid)'),
      paid_at: isoTime.nullable(),
      created_at: isoTime,
      payments: z.array(
        z.object({
          family: family(),
          id: z.string(),
          gross: minor('captured'),
          fee: minor('fee'),
          refunded: minor('refunded'),
          net: minor('net'),
        }),
      ),
      clawbacks: z.array(
        z.object({
          family: family(),
          id: z.string(),
          kind: z.enum(ADJUSTMENT_KINDS),
          chargeback_id: z.string().nullable(),
          amount: minor('taken back (< 0)'),
        }),
      ),
    })
    .meta({ id: 'Settlement' }),
);

/** The settlement's TS type. */
export type SettlementView = z.infer<ReturnType<typeof settlementView>>;

/** The fee terms a settlement states, in minor units of its currency (the settlements service holds them). */
export interface FeeTerms {
  percentBasisPoints: number;
  fixedPerPayment: number;
}

/** A settlement with its payments and clawbacks. */
export function toSettlementView(
  s: Settlement,
  items: SettlementItem[],
  adjustments: SettlementAdjustment[],
  fees: FeeTerms,
): SettlementView {
  return {
    id: s.id,
    object: 'settlement',
    merchant_id: s.merchantId,
    status: s.status,
    currency: s.currency,
    count: s.count,
    gross: s.gross,
    fees: s.fees,
    refunds: s.refunds,
    adjustments: s.adjustments,
    net: s.net,
    fee_model: { percent_basis_points: fees.percentBasisPoints, fixed_per_payment: fees.fixedPerPayment },
    pay_at: iso(s.payAt),
    paid_at: isoOrNull(s.paidAt),
    created_at: iso(s.createdAt),
    payments: items.map((i) => ({
      family: i.subjectType,
      id: i.subjectId,
      gross: i.gross,
      fee: i.fee,
      refunded: i.refunded,
      net: i.gross - i.fee - i.refunded,
    })),
    clawbacks: adjustments.map((a) => ({
      family: a.subjectType,
      id: a.subjectId,
      kind: a.kind,
      chargeback_id: a.chargebackId,
      amount: a.amount,
    })),
  };
}
