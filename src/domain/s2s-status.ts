// The status machine of an S2S transaction as ONE table, like payment-state.ts for /v1/: each
// change of order_status, the statuses it may start from, the status it leads to, and the event
// it publishes. Every status change of a transaction goes through s2sTransition, so a forbidden
// move is always the same 409 and the event of a change is never chosen anywhere else.
import { SandboxError } from '../errors.js';
import { ORDER_STATUS, statusText, type OrderStatusName } from './order-status.js';
import type { TransactionEventType } from './event-types.js';

/** One row of the machine. */
export interface S2STransition {
  /** The statuses the change may start from. */
  from: readonly OrderStatusName[];
  to: OrderStatusName;
  /** The event the change publishes (the same names as the /v1/ family). */
  event: TransactionEventType;
  /** What makes the change, for the docs. */
  trigger: string;
}

/**
 * The whole machine. A transaction is created Pending (0) and leaves it within its create request
 * unless the customer must authenticate, or the card never answers (4999990000000015). Request
 * Processed (8) is only the answer to a refund request: no transaction is ever stored with it.
 * Each (from, to) pair appears in one row only, so it names its event.
 */
export const S2S_TRANSITIONS = {
  approve: {
    from: ['pending'],
    to: 'approved',
    event: 'payment.authorized',
    trigger: 'create (frictionless card) or the challenge passed, and the issuer approved',
  },
  decline: { from: ['pending'], to: 'declined', event: 'payment.declined', trigger: 'the issuer declined, or the challenge failed' },
  cancel: { from: ['pending'], to: 'cancelled', event: 'payment.canceled', trigger: 'Cancel on the authentication page' },
  expire: {
    from: ['pending'],
    to: 'expired',
    event: 'payment.expired',
    trigger: 'the challenge was not completed within its lifetime (--challenge-lifetime, --upi-window)',
  },
  refund_partial: {
    from: ['approved', 'partiallyRefunded'],
    to: 'partiallyRefunded',
    event: 'refund.succeeded',
    trigger: 'a refund of part of what is left completed',
  },
  refund_full: {
    from: ['approved', 'partiallyRefunded'],
    to: 'refunded',
    event: 'refund.succeeded',
    trigger: 'a refund of all that is left completed',
  },
  chargeback: {
    from: ['approved', 'partiallyRefunded'],
    to: 'chargeback',
    event: 'chargeback.created',
    trigger: 'a chargeback opened (test card 4000000000000259 opens one after --chargeback-delay)',
  },
  chargeback_won: {
    from: ['chargeback'],
    to: 'approved',
    event: 'chargeback.won',
    trigger: 'the chargeback of a transaction with no refund was decided for the merchant',
  },
  chargeback_won_refunded: {
    from: ['chargeback'],
    to: 'partiallyRefunded',
    event: 'chargeback.won',
    trigger: 'the chargeback of a partly refunded transaction was decided for the merchant',
  },
  chargeback_lost: {
    from: ['chargeback'],
    to: 'chargeback',
    event: 'chargeback.lost',
    trigger: 'the chargeback was decided for the cardholder; the transaction stays Chargeback',
  },
} as const satisfies Record<string, S2STransition>;

/** One change of the machine. */
export type S2SOperation = keyof typeof S2S_TRANSITIONS;

const ROWS: ReadonlyArray<S2STransition> = Object.values(S2S_TRANSITIONS);
const nameOf = (code: number) => (Object.keys(ORDER_STATUS) as OrderStatusName[]).find((name) => ORDER_STATUS[name].code === code);

/** True when `operation` may start from the order_status `code`. */
export function canApply(code: number, operation: S2SOperation): boolean {
  const name = nameOf(code);
  return name !== undefined && (S2S_TRANSITIONS[operation].from as readonly OrderStatusName[]).includes(name);
}

/** The statuses `operation` may start from, as people read them: "Test Approved (25) or Partially Refunded (6)". */
export function allowedFrom(operation: S2SOperation): string {
  return S2S_TRANSITIONS[operation].from.map((name) => `${ORDER_STATUS[name].text} (${ORDER_STATUS[name].code})`).join(' or ');
}

/** The event of moving transaction `transId` from order_status `from` to `to`; a 409 invalid_state when no row allows it. */
export function s2sTransition(transId: string, from: number, to: OrderStatusName): TransactionEventType {
  const name = nameOf(from);
  const row = ROWS.find((r) => r.to === to && name !== undefined && r.from.includes(name));
  if (!row) {
    const before = ROWS.filter((r) => r.to === to).flatMap((r) => r.from.map((n) => `${ORDER_STATUS[n].text} (${ORDER_STATUS[n].code})`));
    throw new SandboxError(
      'invalid_state',
      `transaction ${transId} is ${statusText(from)} (order_status ${from}); only a transaction that is ${[...new Set(before)].join(' or ')} can become ${ORDER_STATUS[to].text} (${ORDER_STATUS[to].code})`,
    );
  }
  return row.event;
}
