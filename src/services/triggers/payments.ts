// How `sandbox trigger` produces the payment.* and refund.* events: a /v1/ payment, new or given,
// moved through its states by the real operations (create with a test token, 3-D Secure verdicts,
// capture, cancel, refund).
import { validate } from '../../contracts/validate.js';
import { capturePaymentSchema, createPaymentSchema } from '../../contracts/v1-payments.js';
import { createRefundSchema } from '../../contracts/v1-refunds.js';
import type { EventType } from '../../domain/event-types.js';
import { SandboxError, present } from '../../errors.js';
import type { Merchant } from '../../store/credentials-repo.js';
import type { Payment } from '../../store/payments-repo.js';
import type { Verdict } from '../authentication.js';
import { type SetFields, withFields } from './chosen-fields.js';
import { type Driven, type Existing, type PaymentEventType, type Related, TRIGGER_DEFAULTS, type TriggerKit } from './types.js';

/** The payment.* and refund.* events: a /v1/ payment's, new or given. */
export function paymentEvent(
  kit: TriggerKit,
  type: PaymentEventType,
  merchant: Merchant,
  existing: Existing | undefined,
  fields: SetFields,
): Driven {
  if (existing?.family === 's2s') {
    throw new SandboxError(
      'not_allowed',
      `${existing.transaction.transId} is an S2S transaction; trigger takes one for chargeback.* and settlement.* events only. For ${type}, pass a /v1/ payment id (pay_...) or leave payment_id out`,
      'payment_id',
    );
  }
  const payment = existing?.payment;
  const v1 = (p: Payment) => ({ resourceId: p.id, related: { payment_id: p.id } });
  switch (type) {
    case 'payment.requires_action':
      if (payment)
        throw new SandboxError(
          'not_allowed',
          `a payment enters requires_action only when it is created; leave out payment_id to trigger ${type} on a new 3-D Secure payment`,
          'payment_id',
        );
      return v1(newTriggerPayment(kit, merchant, type, 'tok_threeds_required', true, fields));
    case 'payment.authorized':
      if (payment && payment.script.authorisation.result !== 'approve') {
        throw new SandboxError(
          'not_allowed',
          `payment ${payment.id}'s card is declined after 3-D Secure, so it cannot be authorized; leave out payment_id for a new payment`,
          'payment_id',
        );
      }
      return v1(payment ? finishChallenge(kit, payment, 'pass', type) : newTriggerPayment(kit, merchant, type, 'tok_visa', false, fields));
    case 'payment.captured':
      if (payment) {
        // The capture's own body: a partial capture when amount is set.
        const { amount } = validate(capturePaymentSchema(), fields);
        return v1(kit.s.payments.capture(payment.merchantId, payment.id, amount));
      }
      return v1(newTriggerPayment(kit, merchant, type, 'tok_visa', true, fields));
    case 'payment.declined':
      return v1(
        payment ? finishChallenge(kit, payment, 'fail', type) : newTriggerPayment(kit, merchant, type, 'tok_card_declined', true, fields),
      );
    case 'payment.canceled':
      return v1(kit.s.payments.cancel(merchant.id, (payment ?? newTriggerPayment(kit, merchant, type, 'tok_visa', false, fields)).id));
    case 'payment.expired':
      return v1(
        finishChallenge(kit, payment ?? newTriggerPayment(kit, merchant, type, 'tok_threeds_required', true, fields), 'expire', type),
      );
    case 'refund.created':
    case 'refund.succeeded':
    case 'refund.failed':
      return refundEvent(kit, type, merchant, payment, fields);
    default:
      throw new SandboxError('parameter_invalid', `no trigger for ${type satisfies never}`, 'type');
  }
}

/** A refund of a payment, new or given, left pending (refund.created) or completed at once. */
function refundEvent(
  kit: TriggerKit,
  type: Extract<EventType, `refund.${string}`>,
  merchant: Merchant,
  existing: Payment | undefined,
  fields: SetFields,
): Driven {
  const fails = type === 'refund.failed';
  if (existing && type !== 'refund.created' && existing.script.refundFails !== fails) {
    throw new SandboxError(
      'not_allowed',
      fails
        ? `refunds of payment ${existing.id} succeed; refund.failed needs a payment made with tok_refund_fail (card 4000000000005126), or leave out payment_id`
        : `refunds of payment ${existing.id} always fail (card 4000000000005126); trigger refund.failed for it, or leave out payment_id`,
      'payment_id',
    );
  }
  const payment = existing ?? newTriggerPayment(kit, merchant, type, fails ? 'tok_refund_fail' : 'tok_visa');
  const refund = kit.s.v1Refunds.create(payment.merchantId, validate(createRefundSchema(), withFields({ payment_id: payment.id }, fields)));
  if (type !== 'refund.created') kit.s.jobs.runNow('v1_refund.complete', refund.id);
  const related: Related = { payment_id: payment.id, refund_id: refund.id };
  return { resourceId: payment.id, related };
}

/**
 * A new /v1/ payment of 2000 minor units of the merchant's currency with a predefined test token,
 * tagged with the event it was made for; `fields` (--set) laid over that request, which the API's
 * own schema then judges.
 */
export function newTriggerPayment(
  kit: TriggerKit,
  merchant: Merchant,
  type: EventType,
  token: string,
  capture = true,
  fields: SetFields = {},
): Payment {
  const request = {
    amount: TRIGGER_DEFAULTS.amount,
    currency: merchant.currency,
    method: 'card',
    routing: 'smart',
    token,
    capture,
    description: `sandbox trigger ${type}`,
    metadata: { sandbox_trigger: type },
    return_url: TRIGGER_DEFAULTS.returnUrl,
  };
  const { payment } = kit.s.payments.create(merchant, validate(createPaymentSchema(), withFields(request, fields)));
  return payment;
}

/** Completes a payment's open 3-D Secure challenge with a verdict; 409 when it has none open. */
function finishChallenge(kit: TriggerKit, payment: Payment, verdict: Verdict, type: EventType): Payment {
  const challenge = payment.status === 'requires_action' ? kit.s.auth.forSubject('payment', payment.id) : undefined;
  if (challenge?.state !== 'open') {
    throw new SandboxError(
      'invalid_state',
      `payment ${payment.id} is ${payment.status}; ${type} needs a payment that is requires_action (waiting on 3-D Secure)`,
      'payment_id',
    );
  }
  kit.s.auth.complete(challenge.token, verdict);
  return present(kit.deps.store.payments.get(payment.id), `payment ${payment.id}`);
}
