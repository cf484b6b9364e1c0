// /v1/ refunds of captured payments. Accepting one checks what is left and reserves the amount in
// ONE transaction, so concurrent refunds can never together exceed what was captured. Like the
// S2S refund request, a refund is pending first and completes on a timed job: succeeded (the
// payment becomes partially_refunded or refunded) or failed (test card 4000000000005126).
import { newId } from '../domain/ids.js';
import { canApply } from '../domain/payment-state.js';
import { SandboxError, present } from '../errors.js';
import type { CreateRefundInput } from '../contracts/v1-refunds.js';
import type { V1Refund, V1RefundFilter } from '../store/v1-refunds-repo.js';
import type { ServiceDeps } from './deps.js';
import type { JobRunner } from './job-runner.js';
import type { EventPublisher } from './event-publisher.js';
import { paymentEvent, type Payments } from './payments.js';
import { readPage } from './pagination.js';
import type { Page } from '../views/list.js';
import { toRefundEventData } from '../views/event.js';

/** Sandbox time between accepting a refund and its outcome; the same 2 s as the S2S refund request. */
export const V1_REFUND_COMPLETION_MS = 2_000;

/** The /v1/ refund use cases. */
export class V1Refunds {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly payments: Payments,
    private readonly jobs: JobRunner,
    private readonly events: EventPublisher,
  ) {
    jobs.register('v1_refund.complete', (job) => this.completeRefund(job.subjectId));
  }

  /** Accepts a refund of the merchant's payment, reserving its amount; 404 / 422 otherwise. */
  create(merchantId: string, input: CreateRefundInput): V1Refund {
    const { store, clock } = this.deps;
    return store.tx(() => {
      const payment = this.payments.get(merchantId, input.payment_id, 'payment_id');
      if (!canApply(payment.status, 'refund_partial')) {
        throw new SandboxError(
          'not_refundable',
          `payment ${payment.id} is ${payment.status}; only a captured or partially_refunded payment can be refunded${payment.status === 'authorized' ? ' (capture it first, or cancel it to release the authorization)' : ''}`,
          'payment_id',
        );
      }
      const pending = store.v1Refunds.pendingAmount(payment.id);
      const left = payment.amountCaptured - payment.amountRefunded - pending;
      const amount = input.amount ?? left;
      if (amount > left || left <= 0) {
        throw new SandboxError(
          'amount_too_large',
          `amount ${amount} is more than is left to refund: ${left} of the ${payment.amountCaptured} ${payment.currency} minor units captured is left (${payment.amountRefunded} refunded, ${pending} in pending refunds); send an amount of at most ${Math.max(left, 0)}`,
          'amount',
        );
      }
      const now = clock.now();
      const refund: V1Refund = {
        id: newId('rfd'),
        merchantId,
        paymentId: payment.id,
        amount,
        currency: payment.currency,
        reason: input.reason ?? null,
        status: 'pending',
        failureReason: null,
        createdAt: now,
        updatedAt: now,
      };
      store.v1Refunds.insert(refund);
      this.events.publish(paymentEvent(payment, { type: 'refund.created', data: toRefundEventData(refund) }));
      this.jobs.schedule('v1_refund.complete', refund.id, now + V1_REFUND_COMPLETION_MS);
      return refund;
    });
  }

  /** The merchant's refund; 404 for a missing id and for another merchant's alike. */
  get(merchantId: string, id: string): V1Refund {
    const refund = this.deps.store.v1Refunds.getForMerchant(id, merchantId);
    if (!refund)
      throw new SandboxError('resource_missing', `no refund ${id}; use an id returned by POST /v1/refunds with this API key`, 'id');
    return refund;
  }

  /** One page of the merchant's refunds (of one payment when given), newest first. */
  list(filter: Omit<V1RefundFilter, 'startingAfter'> & { startingAfter?: string }): Page<V1Refund> {
    if (filter.paymentId) this.payments.get(filter.merchantId, filter.paymentId, 'payment_id');
    let startingAfter: V1RefundFilter['startingAfter'];
    if (filter.startingAfter) {
      const cursor = this.deps.store.v1Refunds.getForMerchant(filter.startingAfter, filter.merchantId);
      if (!cursor)
        throw new SandboxError(
          'resource_missing',
          `no refund ${filter.startingAfter} to start after; pass the id of the last refund of the previous page`,
          'starting_after',
        );
      startingAfter = cursor;
    }
    return readPage(filter.limit, (limit) => this.deps.store.v1Refunds.list({ ...filter, startingAfter, limit }));
  }

  /** The completion job: succeeded (and the payment's status follows) or failed, with its event. */
  private completeRefund(refundId: string): void {
    const { store, clock } = this.deps;
    const refund = store.v1Refunds.get(refundId);
    if (refund?.status !== 'pending') return;
    const payment = present(store.payments.get(refund.paymentId), `payment ${refund.paymentId}`);
    const now = clock.now();
    const failure = payment.script.refundFails
      ? 'the acquirer rejected the refund (test card 4000000000005126 makes every refund fail)'
      : !canApply(payment.status, 'refund_partial')
        ? `the payment became ${payment.status} before the refund completed`
        : undefined;
    if (failure) {
      // The failed row no longer reserves its amount; the payment keeps its status.
      store.v1Refunds.finish(refund.id, 'failed', failure, now);
      this.events.publish(
        paymentEvent(payment, {
          type: 'refund.failed',
          data: toRefundEventData({ ...refund, status: 'failed', failureReason: failure, updatedAt: now }),
        }),
      );
      return;
    }
    store.v1Refunds.finish(refund.id, 'succeeded', null, now);
    const refunded = payment.amountRefunded + refund.amount;
    const after = this.payments.move(payment, refunded >= payment.amountCaptured ? 'refund_full' : 'refund_partial', {
      amountRefunded: refunded,
    });
    this.events.publish(
      paymentEvent(after, {
        type: 'refund.succeeded',
        data: {
          ...toRefundEventData({ ...refund, status: 'succeeded', updatedAt: now }),
          payment_status: after.status,
          amount_refunded: refunded,
        },
      }),
    );
  }
}
