// S2S refund requests (POST /api/transactions/refund-request). Accepting a refund checks what is
// left and reserves the amount in ONE transaction, so concurrent requests can never together
// exceed the payment. The refund completes later, as the real gateway's does, on a timed job.
import { newId } from '../domain/ids.js';
import { formatDecimalAmount, formatDecimalMoney, parseDecimalAmount } from '../domain/money.js';
import { ORDER_STATUS, statusText } from '../domain/order-status.js';
import { allowedFrom, canApply, s2sTransition } from '../domain/s2s-status.js';
import { SandboxError, present } from '../errors.js';
import type { S2SRefund } from '../store/s2s-refunds-repo.js';
import type { Terminal } from '../store/credentials-repo.js';
import type { Transaction } from '../store/transactions-repo.js';
import type { ServiceDeps } from './deps.js';
import type { JobRunner } from './job-runner.js';
import type { EventPublisher } from './event-publisher.js';
import { transactionChange } from './s2s-payments.js';

/** Sandbox time between accepting a refund and its outcome (refund.succeeded / refund.failed). */
export const REFUND_COMPLETION_MS = 2_000;

/** A refund request as the route validated it; the amount is still decimal text. */
export interface RefundRequest {
  transId: string;
  refundAmount: string;
}

/** An accepted refund and the transaction it belongs to (as it is now). */
export interface RefundAccepted {
  refund: S2SRefund;
  transaction: Transaction;
  /** Minor units still refundable after this refund is counted. */
  left: number;
}

/** The S2S refund use cases. */
export class S2SRefunds {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly jobs: JobRunner,
    private readonly events: EventPublisher,
  ) {
    jobs.register('refund.complete', (job) => this.completeRefund(job.subjectId));
  }

  /** Accepts a refund of a transaction owned by `terminal`, reserving its amount; throws 404/422 otherwise. */
  request(input: RefundRequest, terminal: Terminal): RefundAccepted {
    const { store, clock } = this.deps;
    return store.tx(() => {
      const transaction = store.transactions.get(input.transId);
      // Another terminal's transaction answers exactly like a missing one.
      if (!transaction || transaction.terNo !== terminal.terNo) {
        throw new SandboxError(
          'resource_missing',
          `no transaction ${input.transId} on this terminal; send a transID returned to this public_key's terminal`,
          'transID',
        );
      }
      if (!canApply(transaction.orderStatus, 'refund_full')) {
        throw new SandboxError(
          'not_refundable',
          `transaction ${transaction.transId} is ${statusText(transaction.orderStatus)} (order_status ${transaction.orderStatus}); only ${allowedFrom('refund_full')} transactions can be refunded`,
          'transID',
        );
      }
      const currency = transaction.currency;
      const amount = parseDecimalAmount(input.refundAmount, currency);
      if (amount === undefined) {
        throw new SandboxError(
          'parameter_invalid',
          `refundAmount ${input.refundAmount} has more decimals than ${currency} allows; send a whole amount such as "10"`,
          'refundAmount',
        );
      }
      const left = transaction.amount - store.s2sRefunds.heldAmount(transaction.transId);
      if (amount > left) {
        throw new SandboxError(
          'amount_too_large',
          `refundAmount ${formatDecimalAmount(amount, currency)} is more than is left to refund: ${formatDecimalMoney(left, currency)} of ${formatDecimalMoney(transaction.amount, currency)} is left (refunds still pending count as taken); send at most ${formatDecimalAmount(left, currency)}`,
          'refundAmount',
        );
      }
      const now = clock.now();
      const refund: S2SRefund = {
        id: newId('rfd'),
        transId: transaction.transId,
        merchantId: transaction.merchantId,
        amount,
        currency,
        status: 'pending',
        failureReason: null,
        createdAt: now,
        completedAt: null,
      };
      store.s2sRefunds.insert(refund);
      this.jobs.schedule('refund.complete', refund.id, now + REFUND_COMPLETION_MS);
      return { refund, transaction, left: left - amount };
    });
  }

  /** The refund.complete job: the refund succeeds (Refunded / Partially Refunded) or fails, with its webhook. */
  private completeRefund(refundId: string): void {
    const { store, clock } = this.deps;
    const refund = store.s2sRefunds.get(refundId);
    if (refund?.status !== 'pending') return;
    const transaction = present(store.transactions.get(refund.transId), `transaction ${refund.transId}`);
    const now = clock.now();
    const failure = transaction.script.refundFails
      ? 'the acquirer rejected the refund (test card 4000000000005126 makes every refund fail)'
      : !canApply(transaction.orderStatus, 'refund_full')
        ? `the transaction became ${statusText(transaction.orderStatus)} before the refund completed`
        : undefined;
    if (failure) {
      // The transaction keeps its status; the reserved amount is released by the failed row.
      store.s2sRefunds.finish(refund.id, 'failed', failure, now);
      this.events.publish(
        transactionChange(
          { ...transaction, response: `Refund of ${formatDecimalMoney(refund.amount, refund.currency)} failed: ${failure}` },
          'refund.failed',
        ),
      );
      return;
    }
    store.s2sRefunds.finish(refund.id, 'succeeded', null, now);
    const refunded = transaction.refunded + refund.amount;
    const status = refunded >= transaction.amount ? 'refunded' : 'partiallyRefunded';
    const type = s2sTransition(transaction.transId, transaction.orderStatus, status);
    const code = ORDER_STATUS[status].code;
    const response = `Refund of ${formatDecimalMoney(refund.amount, refund.currency)} succeeded; ${formatDecimalMoney(refunded, refund.currency)} of ${formatDecimalMoney(transaction.amount, refund.currency)} refunded in total`;
    store.transactions.addRefunded(transaction.transId, refund.amount, code, response, now);
    this.events.publish(transactionChange({ ...transaction, refunded, orderStatus: code, response, updatedAt: now }, type));
  }
}
