// The S2S status machine: every (order_status, next status) pair, allowed or not, against the one
// table, and the event each allowed change publishes.
import { describe, expect, it } from 'vitest';
import { ORDER_STATUS, type OrderStatusName } from '../../src/domain/order-status.js';
import { allowedFrom, canApply, s2sTransition, S2S_TRANSITIONS, type S2SOperation } from '../../src/domain/s2s-status.js';
import { SandboxError } from '../../src/errors.js';

/** The machine written out by hand: change -> [from statuses] -> to, and its event. The code's table must equal it. */
const EXPECTED: Record<S2SOperation, { from: OrderStatusName[]; to: OrderStatusName; event: string }> = {
  approve: { from: ['pending'], to: 'approved', event: 'payment.authorized' },
  decline: { from: ['pending'], to: 'declined', event: 'payment.declined' },
  cancel: { from: ['pending'], to: 'cancelled', event: 'payment.canceled' },
  expire: { from: ['pending'], to: 'expired', event: 'payment.expired' },
  refund_partial: { from: ['approved', 'partiallyRefunded'], to: 'partiallyRefunded', event: 'refund.succeeded' },
  refund_full: { from: ['approved', 'partiallyRefunded'], to: 'refunded', event: 'refund.succeeded' },
  chargeback: { from: ['approved', 'partiallyRefunded'], to: 'chargeback', event: 'chargeback.created' },
  chargeback_won: { from: ['chargeback'], to: 'approved', event: 'chargeback.won' },
  chargeback_won_refunded: { from: ['chargeback'], to: 'partiallyRefunded', event: 'chargeback.won' },
  chargeback_lost: { from: ['chargeback'], to: 'chargeback', event: 'chargeback.lost' },
};

const NAMES = Object.keys(ORDER_STATUS) as OrderStatusName[];
const code = (name: OrderStatusName) => ORDER_STATUS[name].code;
/** The event of from -> to in the hand-written table, if any row allows it. */
const expectedEvent = (from: OrderStatusName, to: OrderStatusName) =>
  Object.values(EXPECTED).find((row) => row.to === to && row.from.includes(from))?.event;
const pairs = NAMES.flatMap((from) => NAMES.map((to) => [from, to] as const));

describe('S2S status machine', () => {
  it('has exactly the changes written out here', () => {
    const table = Object.fromEntries(
      Object.entries(S2S_TRANSITIONS).map(([op, row]) => [op, { from: [...row.from], to: row.to, event: row.event }]),
    );
    expect(table).toEqual(EXPECTED);
  });

  it('names each (from, to) pair in one row only, so the pair decides the event', () => {
    const keys = Object.values(S2S_TRANSITIONS).flatMap((row) => row.from.map((from) => `${from}->${row.to}`));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it.each(pairs.filter(([from, to]) => expectedEvent(from, to)))('%s -> %s is allowed and publishes its event', (from, to) => {
    expect(s2sTransition('100000000000001', code(from), to)).toBe(expectedEvent(from, to));
  });

  it.each(pairs.filter(([from, to]) => !expectedEvent(from, to)))('%s -> %s is refused with 409 naming the status', (from, to) => {
    let error: unknown;
    try {
      s2sTransition('100000000000001', code(from), to);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).code).toBe('invalid_state');
    expect((error as SandboxError).status).toBe(409);
    expect((error as SandboxError).message).toContain(
      `transaction 100000000000001 is ${ORDER_STATUS[from].text} (order_status ${code(from)});`,
    );
  });

  it('says it in plain words for a refund of a declined transaction', () => {
    expect(() => s2sTransition('100000000000001', 24, 'refunded')).toThrow(
      'transaction 100000000000001 is Test Declined (order_status 24); only a transaction that is Test Approved (25) or Partially Refunded (6) can become Refunded (5)',
    );
  });

  it.each([[25], [24], [3], [22], [5], [6], [11], [8]])('%i is final: authentication can no longer change it', (status) => {
    for (const op of ['approve', 'decline', 'cancel', 'expire'] as const) expect(canApply(status, op)).toBe(false);
  });

  it('only Pending (0) waits for authentication', () => {
    for (const op of ['approve', 'decline', 'cancel', 'expire'] as const) expect(canApply(0, op)).toBe(true);
  });

  it('accepts refunds and chargebacks only from Test Approved and Partially Refunded', () => {
    const from = (op: S2SOperation) =>
      Object.values(ORDER_STATUS)
        .map((s) => s.code)
        .filter((c) => canApply(c, op))
        .sort((a, b) => a - b);
    expect(from('refund_full')).toEqual([6, 25]);
    expect(from('refund_partial')).toEqual([6, 25]);
    expect(from('chargeback')).toEqual([6, 25]);
    expect(allowedFrom('refund_full')).toBe('Test Approved (25) or Partially Refunded (6)');
  });

  it('never stores Request Processed (8): it is only the answer to a refund request', () => {
    for (const row of Object.values(S2S_TRANSITIONS)) {
      expect(row.to).not.toBe('refundRequested');
      expect(row.from).not.toContain('refundRequested');
    }
  });
});
