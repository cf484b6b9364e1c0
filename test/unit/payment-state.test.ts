// The payment state machine: every (state, operation) pair, legal or not, against the one table.
import { describe, expect, it } from 'vitest';
import {
  canApply,
  nextPaymentState,
  PAYMENT_STATES,
  PAYMENT_TRANSITIONS,
  type PaymentOperation,
  type PaymentState,
} from '../../src/domain/payment-state.js';
import { SandboxError } from '../../src/errors.js';

/** The machine written out by hand: operation -> [from states] -> to. The code's table must equal it. */
const EXPECTED: Record<PaymentOperation, { from: PaymentState[]; to: PaymentState }> = {
  require_action: { from: ['processing'], to: 'requires_action' },
  authorize: { from: ['processing', 'requires_action'], to: 'authorized' },
  decline: { from: ['processing', 'requires_action'], to: 'declined' },
  cancel: { from: ['processing', 'requires_action', 'authorized'], to: 'canceled' },
  expire: { from: ['requires_action'], to: 'expired' },
  lapse: { from: ['authorized'], to: 'expired' },
  capture: { from: ['authorized'], to: 'captured' },
  refund_partial: { from: ['captured', 'partially_refunded'], to: 'partially_refunded' },
  refund_full: { from: ['captured', 'partially_refunded'], to: 'refunded' },
  dispute: { from: ['captured', 'partially_refunded'], to: 'disputed' },
  dispute_won: { from: ['disputed'], to: 'captured' },
  return: { from: ['captured', 'partially_refunded'], to: 'returned' },
};

const operations = Object.keys(EXPECTED) as PaymentOperation[];
const pairs = PAYMENT_STATES.flatMap((state) => operations.map((operation) => [state, operation] as const));

describe('payment state machine', () => {
  it('has exactly the operations written out here', () => {
    expect(Object.keys(PAYMENT_TRANSITIONS).sort()).toEqual([...operations].sort());
  });

  it.each(pairs.filter(([state, op]) => EXPECTED[op].from.includes(state)))('%s --%s--> allowed', (state, operation) => {
    expect(canApply(state, operation)).toBe(true);
    expect(nextPaymentState('pay_x', state, operation)).toBe(EXPECTED[operation].to);
  });

  it.each(pairs.filter(([state, op]) => !EXPECTED[op].from.includes(state)))(
    '%s --%s--> refused with 409 naming the state',
    (state, operation) => {
      expect(canApply(state, operation)).toBe(false);
      let error: unknown;
      try {
        nextPaymentState('pay_x', state, operation);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(SandboxError);
      const sandboxError = error as SandboxError;
      expect(sandboxError.code).toBe('invalid_state');
      expect(sandboxError.status).toBe(409);
      expect(sandboxError.message).toContain(`payment pay_x is ${state};`);
      expect(sandboxError.message).toContain(`only a payment that is ${EXPECTED[operation].from.join(' or ')}`);
    },
  );

  it('says it in plain words for cancel after capture', () => {
    expect(() => nextPaymentState('pay_x', 'captured', 'cancel')).toThrow(
      'payment pay_x is captured; only a payment that is processing or requires_action or authorized can be canceled',
    );
  });

  it('lets no state but the final ones be a dead end', () => {
    const leaving = new Set(operations.flatMap((op) => EXPECTED[op].from));
    expect(PAYMENT_STATES.filter((state) => !leaving.has(state)).sort()).toEqual(
      ['canceled', 'declined', 'expired', 'refunded', 'returned'].sort(),
    );
  });

  it('names an event for every payment.* transition and leaves refunds and chargebacks to their own objects', () => {
    expect(Object.fromEntries(operations.map((op) => [op, PAYMENT_TRANSITIONS[op].event]))).toEqual({
      require_action: 'payment.requires_action',
      authorize: 'payment.authorized',
      decline: 'payment.declined',
      cancel: 'payment.canceled',
      expire: 'payment.expired',
      lapse: 'payment.expired',
      capture: 'payment.captured',
      refund_partial: null,
      refund_full: null,
      dispute: null,
      dispute_won: null,
      return: 'payment.returned',
    });
  });
});
