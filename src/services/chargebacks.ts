// Chargebacks (disputes) of both families. Opening one moves the payment (S2S: order_status 11
// Chargeback with the spec §6.1 webhook; /v1/: status disputed through the payment-state table)
// and publishes chargeback.created in the same transaction; deciding it publishes chargeback.won
// (the payment is reinstated) or chargeback.lost (it stays charged back). The test card
// 4000000000000259 schedules the 'chargeback.open' job handled here, for both families.
import { newId } from '../domain/ids.js';
import { formatDecimalMoney } from '../domain/money.js';
import { ORDER_STATUS, statusText } from '../domain/order-status.js';
import { allowedFrom, canApply, s2sTransition } from '../domain/s2s-status.js';
import { nextPaymentState } from '../domain/payment-state.js';
import { SandboxError, present } from '../errors.js';
import type { Chargeback, ChargebackFilter } from '../store/chargebacks-repo.js';
import type { ChargebackReason, ChargebackStatus, PaymentFamily } from '../domain/vocabularies.js';
import type { Job } from '../store/jobs-repo.js';
import type { Payment } from '../store/payments-repo.js';
import type { ServiceDeps } from './deps.js';
import type { JobRunner } from './job-runner.js';
import type { EventPublisher } from './event-publisher.js';
import { toChargebackEventData } from '../views/event.js';
import { paymentEvent, type Payments } from './payments.js';
import { transactionChange, type S2SPayments } from './s2s-payments.js';

/** The reason a chargeback gets when none is given (and the one the test card opens with). */
export const DEFAULT_CHARGEBACK_REASON: ChargebackReason = 'fraudulent';

/** What opens a chargeback: exactly one of transId / paymentId. Amount in minor units. */
export interface OpenChargebackInput {
  transId?: string;
  paymentId?: string;
  reason?: ChargebackReason;
  /** Default: all that is not refunded. */
  amount?: number;
}

/** The chargeback use cases (control API, CLI, the test card's job, triggers). */
export class Chargebacks {
  constructor(
    private readonly deps: ServiceDeps,
    jobs: JobRunner,
    private readonly s2s: S2SPayments,
    private readonly payments: Payments,
    private readonly events: EventPublisher,
  ) {
    jobs.register('chargeback.open', (job) => this.openScheduled(job));
  }

  /** Opens a chargeback on a transaction or payment; 404 when missing, 409 when not disputable, 422 on too large an amount. */
  open(input: OpenChargebackInput): Chargeback {
    return this.deps.store.tx(() =>
      input.transId !== undefined
        ? this.openS2S(input.transId, input)
        : this.openV1(present(input.paymentId, 'transID or payment_id (the request schema requires one)'), input),
    );
  }

  /** Decides an open chargeback for the merchant: the payment is reinstated (chargeback.won). */
  win(idOrSubject: string): Chargeback {
    return this.decide(idOrSubject, 'won');
  }

  /** Decides an open chargeback for the customer: the payment stays charged back (chargeback.lost). */
  lose(idOrSubject: string): Chargeback {
    return this.decide(idOrSubject, 'lost');
  }

  /** A chargeback by id (dp_...); 404 otherwise. */
  get(id: string): Chargeback {
    const cb = this.deps.store.chargebacks.get(id);
    if (!cb) throw new SandboxError('resource_missing', `no chargeback ${id}; GET /_sandbox/chargebacks lists them`, 'id');
    return cb;
  }

  /** Newest first. */
  list(filter: ChargebackFilter): Chargeback[] {
    return this.deps.store.chargebacks.list(filter);
  }

  /** A chargeback id, or the transID / payment id of a payment with an open chargeback. */
  private resolve(idOrSubject: string): Chargeback {
    if (idOrSubject.startsWith('dp_')) return this.get(idOrSubject);
    const open = this.deps.store.chargebacks.openFor(idOrSubject);
    if (open) return open;
    const known = this.deps.store.transactions.get(idOrSubject) ?? this.deps.store.payments.get(idOrSubject);
    if (!known)
      throw new SandboxError(
        'resource_missing',
        `no chargeback, transaction or payment ${idOrSubject}; pass a chargeback id (dp_...) or the transID / payment id of an open chargeback`,
        'id',
      );
    throw new SandboxError(
      'invalid_state',
      `${idOrSubject} has no open chargeback; open one first (POST /_sandbox/chargebacks or \`sandbox chargeback ${idOrSubject}\`)`,
      'id',
    );
  }

  private decide(idOrSubject: string, status: Exclude<ChargebackStatus, 'open'>): Chargeback {
    const { store, clock } = this.deps;
    return store.tx(() => {
      const found = this.resolve(idOrSubject);
      if (found.status !== 'open')
        throw new SandboxError(
          'invalid_state',
          `chargeback ${found.id} is already ${found.status}; only an open chargeback can be won or lost`,
          'id',
        );
      const now = clock.now();
      store.chargebacks.decide(found.id, status, now);
      const cb = { ...found, status, updatedAt: now };
      if (cb.subjectType === 's2s') this.decideS2S(cb);
      else this.decideV1(cb);
      return cb;
    });
  }

  private openS2S(transId: string, input: OpenChargebackInput): Chargeback {
    const t = this.deps.store.transactions.get(transId);
    if (!t) throw new SandboxError('resource_missing', `no transaction ${transId}; send a transID returned by /api/s2s`, 'transID');
    // The S2S status table decides what can be charged back; this 409 also names the field.
    if (!canApply(t.orderStatus, 'chargeback')) {
      throw new SandboxError(
        'invalid_state',
        `transaction ${transId} is ${statusText(t.orderStatus)} (order_status ${t.orderStatus}); only a ${allowedFrom('chargeback')} transaction can be charged back`,
        'transID',
      );
    }
    const cb = this.insert(t.merchantId, 's2s', transId, t.currency, t.amount - t.refunded, input);
    this.s2s.finalise(
      t,
      'chargeback',
      `Chargeback ${cb.id} opened (${cb.reason}): ${formatDecimalMoney(cb.amount, cb.currency)} disputed by the cardholder`,
    );
    return cb;
  }

  private openV1(paymentId: string, input: OpenChargebackInput): Chargeback {
    const payment = this.deps.store.payments.get(paymentId);
    if (!payment)
      throw new SandboxError('resource_missing', `no payment ${paymentId}; send an id returned by POST /v1/payments`, 'payment_id');
    // The payment-state table decides what can be disputed; its 409 names the current status.
    nextPaymentState(payment.id, payment.status, 'dispute');
    const cb = this.insert(payment.merchantId, 'v1', paymentId, payment.currency, payment.amountCaptured - payment.amountRefunded, input);
    const disputed = this.payments.move(payment, 'dispute');
    this.events.publish(paymentEvent(disputed, { type: 'chargeback.created', data: toChargebackEventData(cb, disputed.status) }));
    return cb;
  }

  private insert(
    merchantId: string,
    subjectType: PaymentFamily,
    subjectId: string,
    currency: string,
    left: number,
    input: OpenChargebackInput,
  ): Chargeback {
    const amount = input.amount ?? left;
    if (amount > left) {
      throw new SandboxError(
        'amount_too_large',
        `amount ${amount} is more than can be disputed: ${left} ${currency} minor units are captured and not refunded; send at most ${left}`,
        'amount',
      );
    }
    const now = this.deps.clock.now();
    const cb: Chargeback = {
      id: newId('dp'),
      merchantId,
      subjectType,
      subjectId,
      amount,
      currency,
      reason: input.reason ?? DEFAULT_CHARGEBACK_REASON,
      status: 'open',
      createdAt: now,
      updatedAt: now,
    };
    this.deps.store.chargebacks.insert(cb);
    return cb;
  }

  private decideS2S(cb: Chargeback): void {
    const { store, clock } = this.deps;
    const t = present(store.transactions.get(cb.subjectId), `transaction ${cb.subjectId}`);
    // Won: the transaction returns to what it was before the chargeback (approved, or partially refunded).
    const status = cb.status === 'won' ? (t.refunded > 0 ? 'partiallyRefunded' : 'approved') : 'chargeback';
    const type = s2sTransition(t.transId, t.orderStatus, status);
    const code = ORDER_STATUS[status].code;
    const response =
      cb.status === 'won'
        ? `Chargeback ${cb.id} won: the ${formatDecimalMoney(cb.amount, cb.currency)} stays with the merchant`
        : `Chargeback ${cb.id} lost: the ${formatDecimalMoney(cb.amount, cb.currency)} is returned to the cardholder`;
    const now = clock.now();
    store.transactions.setStatus(t.transId, code, response, now);
    this.events.publish(transactionChange({ ...t, orderStatus: code, response, updatedAt: now }, type));
  }

  private decideV1(cb: Chargeback & { status: Exclude<ChargebackStatus, 'open'> }): void {
    const payment = present(this.deps.store.payments.get(cb.subjectId), `payment ${cb.subjectId}`);
    // Won: disputed -> captured (payment-state row dispute_won). Lost: the payment stays disputed.
    const after: Payment = cb.status === 'won' ? this.payments.move(payment, 'dispute_won') : payment;
    this.events.publish(paymentEvent(after, { type: `chargeback.${cb.status}`, data: toChargebackEventData(cb, after.status) }));
  }

  /** The test card's job: opens a chargeback for the full amount, unless the payment moved on (refunded, canceled...). */
  private openScheduled(job: Job): void {
    const input: OpenChargebackInput = job.payload.family === 's2s' ? { transId: job.subjectId } : { paymentId: job.subjectId };
    try {
      this.open(input);
    } catch (err) {
      if (!(err instanceof SandboxError)) throw err;
      this.deps.logger.info(`chargeback.open for ${job.subjectId} skipped: ${err.message}`);
    }
  }
}
