// `sandbox trigger <event-type>`: produces one event of any docs/decisions.md type by driving the real
// services (a real payment with the right test token moved through its states, a real refund,
// chargeback, settlement or checkout session), so every object an event names exists and reads
// the same through the API. With a payment id it works on that payment where the event can
// follow from its state, and answers 409/422 where it cannot. The whole trigger is one
// transaction: it produces the event or changes nothing.
import { type EventType } from '../domain/event-types.js';
import type { PaymentFamily } from '../domain/vocabularies.js';
import { SandboxError } from '../errors.js';
import { refuseControlTarget } from '../runtime/machine-names.js';
import type { Merchant } from '../store/credentials-repo.js';
import type { EventRecord } from '../store/events-repo.js';
import type { Payment } from '../store/payments-repo.js';
import type { Transaction } from '../store/transactions-repo.js';
import type { Authentication, Verdict } from './authentication.js';
import type { Chargebacks } from './chargebacks.js';
import type { CheckoutPayments } from './checkout-payments.js';
import type { CheckoutSessions } from './checkout-sessions.js';
import type { Deliveries } from './deliveries.js';
import type { ServiceDeps } from './deps.js';
import type { JobRunner } from './job-runner.js';
import type { Payments } from './payments.js';
import { SETTLEABLE_CODES, SETTLEABLE_STATES, type Settlements } from './settlements.js';
import type { V1Refunds } from './v1-refunds.js';

/** What the trigger makes its new objects with: 2000 minor units of the merchant's currency (EUR 20.00 for the fixtures'), and where a 3-D Secure customer would return. */
export const TRIGGER_DEFAULTS = { amount: 2000, returnUrl: 'https://shop.example/return' } as const;

/** One trigger request. */
export interface TriggerInput {
  type: EventType;
  /** An existing /v1/ payment (pay_...) or S2S transID to work on. */
  paymentId?: string;
  /** Also deliver the event to this URL (a manual delivery, tried once). */
  to?: string;
  /** Whose new objects these are (default: the first merchant of the fixtures, mer_sandbox). */
  merchantId?: string;
}

/** The events of a /v1/ payment and its refunds. */
type PaymentEventType = Extract<EventType, `payment.${string}` | `refund.${string}`>;

/** The ids of the objects a triggered event is about. */
export type Related = Partial<
  Record<'payment_id' | 'transID' | 'refund_id' | 'chargeback_id' | 'settlement_id' | 'checkout_session_id', string>
>;

/** What a trigger produced: the event asked for, every event its work recorded, and the objects. */
export interface TriggerResult {
  event: EventRecord;
  events: EventRecord[];
  related: Related;
  /** The manual delivery to `to`, when asked for. */
  deliveryId: string | null;
}

/** An existing payment of either family. */
type Existing = { family: 'v1'; payment: Payment } | { family: 's2s'; transaction: Transaction };

/** The services a trigger drives. */
export interface TriggerServices {
  jobs: JobRunner;
  auth: Authentication;
  payments: Payments;
  v1Refunds: V1Refunds;
  chargebacks: Chargebacks;
  settlements: Settlements;
  checkout: CheckoutSessions;
  checkoutPayments: CheckoutPayments;
  deliveries: Deliveries;
}

/** Produces realistic events on demand. */
export class Triggers {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly s: TriggerServices,
  ) {}

  /** Produces one event of `input.type` (plus the real events leading to it); 404/409/422 when it cannot. */
  trigger(input: TriggerInput): TriggerResult {
    refuseControlTarget(input.to, 'to', this.deps.config);
    const { store } = this.deps;
    const existing = input.paymentId === undefined ? undefined : this.existing(input.paymentId);
    const merchant = this.merchant(input.merchantId, existing);
    const produced = store.tx(() => {
      const mark = store.triggers.eventMark();
      const { resourceId, related } = this.drive(input.type, merchant, existing);
      const events = store.triggers.eventsSince(mark);
      const event = events.filter((e) => e.type === input.type && e.resourceId === resourceId).pop();
      if (!event) {
        // Rolls the whole trigger back: nothing half-done is left behind.
        throw new SandboxError(
          'not_allowed',
          `${resourceId} did not produce ${input.type} (${this.describe(resourceId)}); nothing was changed`,
          'type',
        );
      }
      return { event, events, related };
    });
    // After the commit, so the replay finds the event's own deliveries to copy.
    const deliveryId = input.to ? this.s.deliveries.replayEvent(produced.event.id, input.to).id : null;
    return { ...produced, deliveryId };
  }

  // One case per event name, checked to be exhaustive: a new name in event-types.ts fails the type
  // check here until it has a way to be triggered.
  private drive(type: EventType, merchant: Merchant, existing: Existing | undefined): { resourceId: string; related: Related } {
    switch (type) {
      case 'checkout.session.completed':
      case 'checkout.session.expired':
        if (existing)
          throw new SandboxError(
            'not_allowed',
            `${type} comes from a checkout session the trigger creates and pays or expires; leave out payment_id`,
            'payment_id',
          );
        return this.checkoutSession(merchant, type === 'checkout.session.completed');
      case 'chargeback.created':
      case 'chargeback.won':
      case 'chargeback.lost':
        return this.chargeback(type, merchant, existing);
      case 'settlement.created':
      case 'settlement.paid':
        return this.settlement(type, merchant, existing);
      default:
        return this.onPayment(type, merchant, existing);
    }
  }

  /** The payment.* and refund.* events: a /v1/ payment's, new or given. */
  private onPayment(type: PaymentEventType, merchant: Merchant, existing: Existing | undefined): { resourceId: string; related: Related } {
    if (existing?.family === 's2s') {
      throw new SandboxError(
        'not_allowed',
        `${existing.transaction.transId} is an S2S transaction; trigger takes one for chargeback.* and settlement.* events only. For ${type}, pass a /v1/ payment id (pay_...) or leave payment_id out`,
        'payment_id',
      );
    }
    const payment = existing?.payment;
    const v1 = (p: Payment, extra: Related = {}) => ({ resourceId: p.id, related: { payment_id: p.id, ...extra } });
    switch (type) {
      case 'payment.requires_action':
        if (payment)
          throw new SandboxError(
            'not_allowed',
            `a payment enters requires_action only when it is created; leave out payment_id to trigger ${type} on a new 3-D Secure payment`,
            'payment_id',
          );
        return v1(this.newPayment(merchant, type, 'tok_threeds_required'));
      case 'payment.authorized':
        if (payment && payment.script.authorisation.result !== 'approve') {
          throw new SandboxError(
            'not_allowed',
            `payment ${payment.id}'s card is declined after 3-D Secure, so it cannot be authorized; leave out payment_id for a new payment`,
            'payment_id',
          );
        }
        return v1(payment ? this.finishChallenge(payment, 'pass', type) : this.newPayment(merchant, type, 'tok_visa', false));
      case 'payment.captured':
        if (payment) return v1(this.s.payments.capture(payment.merchantId, payment.id));
        return v1(this.newPayment(merchant, type, 'tok_visa'));
      case 'payment.declined':
        return v1(payment ? this.finishChallenge(payment, 'fail', type) : this.newPayment(merchant, type, 'tok_card_declined'));
      case 'payment.canceled':
        return v1(this.s.payments.cancel(merchant.id, (payment ?? this.newPayment(merchant, type, 'tok_visa', false)).id));
      case 'payment.expired':
        return v1(this.finishChallenge(payment ?? this.newPayment(merchant, type, 'tok_threeds_required'), 'expire', type));
      case 'refund.created':
      case 'refund.succeeded':
      case 'refund.failed':
        return this.refund(type, merchant, payment);
      default:
        throw new SandboxError('parameter_invalid', `no trigger for ${type satisfies never}`, 'type');
    }
  }

  private refund(type: Extract<EventType, `refund.${string}`>, merchant: Merchant, existing: Payment | undefined) {
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
    const payment = existing ?? this.newPayment(merchant, type, fails ? 'tok_refund_fail' : 'tok_visa');
    const refund = this.s.v1Refunds.create(payment.merchantId, { payment_id: payment.id });
    if (type !== 'refund.created') this.s.jobs.runNow('v1_refund.complete', refund.id);
    return { resourceId: payment.id, related: { payment_id: payment.id, refund_id: refund.id } };
  }

  private chargeback(type: EventType, merchant: Merchant, existing: Existing | undefined) {
    const subject = existing
      ? { id: existing.family === 'v1' ? existing.payment.id : existing.transaction.transId, family: existing.family }
      : { id: this.newPayment(merchant, type, 'tok_visa').id, family: 'v1' as const };
    const open = type === 'chargeback.created' ? undefined : this.deps.store.chargebacks.openFor(subject.id);
    let cb = open ?? this.s.chargebacks.open(subject.family === 'v1' ? { paymentId: subject.id } : { transId: subject.id });
    if (type === 'chargeback.won') cb = this.s.chargebacks.win(cb.id);
    if (type === 'chargeback.lost') cb = this.s.chargebacks.lose(cb.id);
    const related: Related = subject.family === 'v1' ? { payment_id: subject.id } : { transID: subject.id };
    return { resourceId: subject.id, related: { ...related, chargeback_id: cb.id } };
  }

  private settlement(type: EventType, merchant: Merchant, existing: Existing | undefined) {
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
      const settled = this.s.settlements.settlementOf(subject.family, subject.id);
      if (settled && paid && settled.status === 'created')
        return { resourceId: settled.id, related: related(this.s.settlements.payNow(settled.id).id, subject.id, subject.family) };
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
      id: this.newPayment(merchant, type, 'tok_visa').id,
      merchantId: merchant.id,
      currency: merchant.currency,
    };
    this.s.settlements.settle({ merchantId: target.merchantId, currency: target.currency, payAfterMs: paid ? 0 : undefined });
    const settlement = this.s.settlements.settlementOf(target.family, target.id)!;
    return { resourceId: settlement.id, related: related(settlement.id, target.id, target.family) };
  }

  private checkoutSession(merchant: Merchant, completed: boolean) {
    const session = this.s.checkout.create(merchant, {
      amount: TRIGGER_DEFAULTS.amount,
      currency: merchant.currency,
      methods: ['card'],
      return_url: TRIGGER_DEFAULTS.returnUrl,
      reference: `trigger_${completed ? 'completed' : 'expired'}`,
      expires_in: 1800,
    });
    if (!completed) {
      this.s.checkout.expire(merchant.id, session.id);
      return { resourceId: session.id, related: { checkout_session_id: session.id } };
    }
    const year = new Date(this.deps.clock.now()).getUTCFullYear() + 5;
    this.s.checkoutPayments.payCard(session, { number: '4242424242424242', exp_month: 12, exp_year: year, cvc: '123' }, 'Jane Doe');
    const after = this.deps.store.checkoutSessions.get(session.id)!;
    return {
      resourceId: session.id,
      related: { checkout_session_id: session.id, ...(after.paymentId ? { payment_id: after.paymentId } : {}) },
    };
  }

  /** A new /v1/ payment of 2000 minor units of the merchant's currency with a predefined test token, tagged with the event it was made for. */
  private newPayment(merchant: Merchant, type: EventType, token: string, capture = true): Payment {
    const { payment } = this.s.payments.create(merchant, {
      amount: TRIGGER_DEFAULTS.amount,
      currency: merchant.currency,
      method: 'card',
      routing: 'smart',
      token,
      capture,
      description: `sandbox trigger ${type}`,
      metadata: { sandbox_trigger: type },
      return_url: TRIGGER_DEFAULTS.returnUrl,
    });
    return payment;
  }

  /** Completes a payment's open 3-D Secure challenge with a verdict; 409 when it has none open. */
  private finishChallenge(payment: Payment, verdict: Verdict, type: EventType): Payment {
    const challenge = payment.status === 'requires_action' ? this.s.auth.forSubject('payment', payment.id) : undefined;
    if (!challenge || challenge.state !== 'open') {
      throw new SandboxError(
        'invalid_state',
        `payment ${payment.id} is ${payment.status}; ${type} needs a payment that is requires_action (waiting on 3-D Secure)`,
        'payment_id',
      );
    }
    this.s.auth.complete(challenge.token, verdict);
    return this.deps.store.payments.get(payment.id)!;
  }

  private existing(id: string): Existing {
    const payment = this.deps.store.payments.get(id);
    if (payment) return { family: 'v1', payment };
    const transaction = this.deps.store.transactions.get(id);
    if (transaction) return { family: 's2s', transaction };
    throw new SandboxError(
      'resource_missing',
      `no payment or transaction ${id}; pass a /v1/ payment id (pay_...) or an S2S transID, or leave payment_id out`,
      'payment_id',
    );
  }

  private merchant(merchantId: string | undefined, existing: Existing | undefined): Merchant {
    const { credentials } = this.deps.store;
    const id = existing ? (existing.family === 'v1' ? existing.payment.merchantId : existing.transaction.merchantId) : merchantId;
    if (existing && merchantId !== undefined && merchantId !== id) {
      throw new SandboxError(
        'parameter_invalid',
        `${input(existing)} belongs to merchant ${id}, not ${merchantId}; leave merchant out when you pass payment_id`,
        'merchant',
      );
    }
    const merchant = id === undefined ? credentials.merchants()[0] : credentials.merchant(id);
    if (!merchant)
      throw new SandboxError('resource_missing', `no merchant ${id}; use a merchant id of the fixtures, e.g. mer_sandbox`, 'merchant');
    return merchant;
  }

  private describe(resourceId: string): string {
    const payment = this.deps.store.payments.get(resourceId);
    if (payment) return `payment ${payment.id} is ${payment.status}`;
    const t = this.deps.store.transactions.get(resourceId);
    return t ? `order_status ${t.orderStatus}` : 'no such object';
  }
}

function input(existing: Existing): string {
  return existing.family === 'v1' ? `payment ${existing.payment.id}` : `transaction ${existing.transaction.transId}`;
}
