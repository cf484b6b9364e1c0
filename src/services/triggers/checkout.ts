// How `sandbox trigger` produces the checkout.session.* events: a hosted checkout session it
// creates (with the --set fields laid over its request), then pays with a test card or expires.
import { validate } from '../../contracts/validate.js';
import { checkoutSessionSchema } from '../../contracts/v1-checkout.js';
import type { Merchant } from '../../store/credentials-repo.js';
import { type SetFields, withFields } from './chosen-fields.js';
import { type Driven, TRIGGER_DEFAULTS, type TriggerKit } from './types.js';
import { present } from '../../errors.js';

/** A new checkout session, paid by card (checkout.session.completed) or expired. */
export function checkoutSessionEvent(kit: TriggerKit, merchant: Merchant, completed: boolean, fields: SetFields): Driven {
  const request = {
    amount: TRIGGER_DEFAULTS.amount,
    currency: merchant.currency,
    methods: ['card'],
    return_url: TRIGGER_DEFAULTS.returnUrl,
    reference: `trigger_${completed ? 'completed' : 'expired'}`,
    expires_in: 1800,
  };
  const session = kit.s.checkout.create(merchant, validate(checkoutSessionSchema(), withFields(request, fields)));
  if (!completed) {
    kit.s.checkout.expire(merchant.id, session.id);
    return { resourceId: session.id, related: { checkout_session_id: session.id } };
  }
  const year = new Date(kit.deps.clock.now()).getUTCFullYear() + 5;
  kit.s.checkoutPayments.payCard(session, { number: '4242424242424242', exp_month: 12, exp_year: year, cvc: '123' }, 'Jane Doe');
  const after = present(kit.deps.store.checkoutSessions.get(session.id), `checkout session ${session.id}`);
  return {
    resourceId: session.id,
    related: { checkout_session_id: session.id, ...(after.paymentId ? { payment_id: after.paymentId } : {}) },
  };
}

/** A SEPA Direct Debit on a new checkout session, collected and then returned at once (AM04, the test IBAN NL91 ABNA 0417 1643 00). */
export function sepaReturnEvent(kit: TriggerKit, merchant: Merchant, fields: SetFields): Driven {
  const request = {
    amount: TRIGGER_DEFAULTS.amount,
    currency: merchant.currency,
    methods: ['sepa'],
    return_url: TRIGGER_DEFAULTS.returnUrl,
    reference: 'trigger_returned',
    expires_in: 1800,
  };
  const session = kit.s.checkout.create(merchant, validate(checkoutSessionSchema(), withFields(request, fields)));
  const payment = kit.s.checkoutPayments.paySepa(session, 'NL91ABNA0417164300', 'Jane Doe');
  kit.s.jobs.runNow('checkout.sepa_settle', payment.id);
  kit.s.jobs.runNow('payment.return', payment.id);
  return { resourceId: payment.id, related: { checkout_session_id: session.id, payment_id: payment.id } };
}
