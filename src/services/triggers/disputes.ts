// How `sandbox trigger` produces the chargeback.* and settlement.* events: on a payment of either
// family, new or given, through the real chargeback and settlement operations.
import { openChargebackSchema } from '../../contracts/chargebacks.js';
import { validate } from '../../contracts/validate.js';
import type { EventType } from '../../domain/event-types.js';
import type { PaymentFamily } from '../../domain/vocabularies.js';
import { SandboxError, present } from '../../errors.js';
import type { Merchant } from '../../store/credentials-repo.js';
import { SETTLEABLE_CODES, SETTLEABLE_STATES } from '../settlements.js';
import { newTriggerPayment } from './payments.js';
import { type SetFields, withFields } from './chosen-fields.js';
import type { Driven, Existing, Related, TriggerKit } from './types.js';

/** A chargeback opened on the payment (chargeback.created), then decided for won or lost. */
export function chargebackEvent(
  kit: TriggerKit,
  type: EventType,
  merchant: Merchant,
  existing: Existing | undefined,
  fields: SetFields,
): Driven {
  const subject = existing
    ? { id: existing.family === 'v1' ? existing.payment.id : existing.transaction.transId, family: existing.family }
    : { id: newTriggerPayment(kit, merchant, type, 'tok_visa').id, family: 'v1' as const };
  const open = type === 'chargeback.created' ? undefined : kit.deps.store.chargebacks.openFor(subject.id);
  const changed = Object.keys(fields)[0];
  if (open && changed !== undefined) {
    throw new SandboxError(
      'parameter_invalid',
      `${changed} cannot change on chargeback ${open.id}, which is open on ${subject.id} already; ${type} decides it as it is. Leave out payment_id to open a new chargeback with it`,
      `set.${changed}`,
    );
  }
  let cb = open ?? openChargeback(kit, subject, fields);
  if (type === 'chargeback.won') cb = kit.s.chargebacks.win(cb.id);
  if (type === 'chargeback.lost') cb = kit.s.chargebacks.lose(cb.id);
  const related: Related = subject.family === 'v1' ? { payment_id: subject.id } : { transID: subject.id };
  return { resourceId: subject.id, related: { ...related, chargeback_id: cb.id } };
}

/** Opens a chargeback through the control API's own request, so a bad amount or reason is its 400. */
function openChargeback(kit: TriggerKit, subject: { id: string; family: PaymentFamily }, fields: SetFields) {
  const request = withFields(subject.family === 'v1' ? { payment_id: subject.id } : { transID: subject.id }, fields);
  const body = validate(openChargebackSchema(), request);
  return kit.s.chargebacks.open({ transId: body.transID, paymentId: body.payment_id, reason: body.reason, amount: body.amount });
}

/** A settlement of the payment (settlement.created), paid out at once for settlement.paid. */
export function settlementEvent(kit: TriggerKit, type: EventType, merchant: Merchant, existing: Existing | undefined): Driven {
  const paid = type === 'settlement.paid';
  const subject = existing
    ? existing.family === 'v1'
      ? {
          family: 'v1' as const,
          id: existing.payment.id,
          settleable: SETTLEABLE_STATES.includes(existing.payment.status),
          status: existing.payment.status,
          merchantId: existing.payment.merchantId,
          currency: existing.payment.currency,
        }
      : {
          family: 's2s' as const,
          id: existing.transaction.transId,
          settleable: SETTLEABLE_CODES.includes(existing.transaction.orderStatus),
          status: `order_status ${existing.transaction.orderStatus}`,
          merchantId: existing.transaction.merchantId,
          currency: existing.transaction.currency,
        }
    : undefined;
  const related = (settlementId: string, id: string, family: PaymentFamily): Related => ({
    settlement_id: settlementId,
    ...(family === 'v1' ? { payment_id: id } : { transID: id }),
  });
  if (subject) {
    const settled = kit.s.settlements.settlementOf(subject.family, subject.id);
    if (settled && paid && settled.status === 'created')
      return { resourceId: settled.id, related: related(kit.s.settlements.payNow(settled.id).id, subject.id, subject.family) };
    if (settled)
      throw new SandboxError(
        'invalid_state',
        `${subject.id} is already in settlement ${settled.id}, which is ${settled.status}; a payment is settled once`,
        'payment_id',
      );
    if (!subject.settleable) {
      throw new SandboxError(
        'invalid_state',
        `${subject.id} is ${subject.status}; only captured, partially_refunded or refunded payments (S2S: order_status 25, 6 or 5) are settled`,
        'payment_id',
      );
    }
  }
  const target = subject ?? {
    family: 'v1' as const,
    id: newTriggerPayment(kit, merchant, type, 'tok_visa').id,
    merchantId: merchant.id,
    currency: merchant.currency,
  };
  kit.s.settlements.settle({ merchantId: target.merchantId, currency: target.currency, payAfterMs: paid ? 0 : undefined });
  const settlement = present(kit.s.settlements.settlementOf(target.family, target.id), `the settlement of ${target.id}`);
  return { resourceId: settlement.id, related: related(settlement.id, target.id, target.family) };
}
