// The state machine of a /v1/ payment as ONE table: each operation, the states it may start from,
// the state it leads to, and the event that announces it. Every status change of a payment goes
// through nextPaymentState, so an illegal move is always the same 409 naming the current state.
import { SandboxError } from '../errors.js';
import type { EventType } from './event-types.js';

/** Every status a payment can have. `processing` is where a payment waits for the acquirer. */
export const PAYMENT_STATES = [
  'processing',
  'requires_action',
  'authorized',
  'captured',
  'declined',
  'canceled',
  'expired',
  'partially_refunded',
  'refunded',
  'disputed',
] as const;

/** One payment status. */
export type PaymentState = (typeof PAYMENT_STATES)[number];

/** One row of the machine. */
export interface PaymentTransition {
  /** The states the operation may start from. */
  from: readonly PaymentState[];
  to: PaymentState;
  /** The event published when the move happens; null when another object's event carries it. */
  event: EventType | null;
  /** The past participle used in the 409 message ("can be captured"). */
  done: string;
  /** What triggers the operation, for the docs. */
  trigger: string;
}

/**
 * The whole machine. A payment is created in `processing` and leaves it within its create
 * request, except with the card that never answers (tok_no_answer).
 */
export const PAYMENT_TRANSITIONS = {
  require_action: {
    from: ['processing'],
    to: 'requires_action',
    event: 'payment.requires_action',
    done: 'sent to 3-D Secure',
    trigger: 'create: the card needs 3-D Secure',
  },
  authorize: {
    from: ['processing', 'requires_action'],
    to: 'authorized',
    event: 'payment.authorized',
    done: 'authorized',
    trigger: 'create (frictionless card) or the challenge passed, and the issuer approved',
  },
  decline: {
    from: ['processing', 'requires_action'],
    to: 'declined',
    event: 'payment.declined',
    done: 'declined',
    trigger: 'the issuer declined, or the challenge failed',
  },
  cancel: {
    from: ['processing', 'requires_action', 'authorized'],
    to: 'canceled',
    event: 'payment.canceled',
    done: 'canceled',
    trigger: 'POST /v1/payments/{id}/cancel, or Cancel on the authentication page',
  },
  expire: {
    from: ['requires_action'],
    to: 'expired',
    event: 'payment.expired',
    done: 'expired',
    trigger: 'the challenge was not completed within its lifetime (15 min)',
  },
  capture: {
    from: ['authorized'],
    to: 'captured',
    event: 'payment.captured',
    done: 'captured',
    trigger: 'capture: true at create, or POST /v1/payments/{id}/capture',
  },
  refund_partial: {
    from: ['captured', 'partially_refunded'],
    to: 'partially_refunded',
    event: null,
    done: 'refunded',
    trigger: 'a refund of part of what is left succeeded (event refund.succeeded)',
  },
  refund_full: {
    from: ['captured', 'partially_refunded'],
    to: 'refunded',
    event: null,
    done: 'refunded',
    trigger: 'a refund of all that is left succeeded (event refund.succeeded)',
  },
  // The chargebacks service publishes chargeback.* with the chargeback's own data.
  dispute: {
    from: ['captured', 'partially_refunded'],
    to: 'disputed',
    event: null,
    done: 'disputed',
    trigger: 'a chargeback opened (event chargeback.created; test card 4000000000000259 opens one 30 s after capture)',
  },
  dispute_won: {
    from: ['disputed'],
    to: 'captured',
    event: null,
    done: 'reinstated',
    trigger: 'the chargeback was decided for the merchant (event chargeback.won)',
  },
} as const satisfies Record<string, PaymentTransition>;

/** One operation of the machine. */
export type PaymentOperation = keyof typeof PAYMENT_TRANSITIONS;

/** True when `operation` is allowed from `current`. */
export function canApply(current: PaymentState, operation: PaymentOperation): boolean {
  return (PAYMENT_TRANSITIONS[operation].from as readonly PaymentState[]).includes(current);
}

/** The state `operation` leads to from `current`; a 409 invalid_state naming `current` when illegal. */
export function nextPaymentState(paymentId: string, current: PaymentState, operation: PaymentOperation): PaymentState {
  const row: PaymentTransition = PAYMENT_TRANSITIONS[operation];
  if (!canApply(current, operation)) {
    throw new SandboxError(
      'invalid_state',
      `payment ${paymentId} is ${current}; only a payment that is ${row.from.join(' or ')} can be ${row.done}`,
    );
  }
  return row.to;
}
