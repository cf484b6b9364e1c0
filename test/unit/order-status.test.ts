import { describe, expect, it } from 'vitest';
import { FINAL_AUTH_CODES, ORDER_STATUS, REFUNDABLE_CODES, statusText } from '../../src/domain/order-status.js';

// The order_status table of docs/decisions.md.
const TABLE: Array<[number, string]> = [
  [0, 'Pending'],
  [25, 'Test Approved'],
  [24, 'Test Declined'],
  [3, 'Cancelled'],
  [22, 'Expired'],
  [8, 'Request Processed'],
  [5, 'Refunded'],
  [6, 'Partially Refunded'],
  [11, 'Chargeback'],
];

describe('order_status table', () => {
  it.each(TABLE)('%i is "%s"', (code, text) => {
    expect(statusText(code)).toBe(text);
  });

  it('has exactly the codes of docs/decisions.md, each once', () => {
    const codes = Object.values(ORDER_STATUS).map((entry) => entry.code);
    expect(codes.sort((a, b) => a - b)).toEqual(TABLE.map(([code]) => code).sort((a, b) => a - b));
  });

  it('throws on a code it does not know', () => {
    expect(() => statusText(1)).toThrow(/unknown order_status 1/);
  });

  it.each([[25], [24], [3], [22], [5], [6], [11]])('%i is final: authentication can no longer change it', (code) => {
    expect(FINAL_AUTH_CODES.has(code)).toBe(true);
  });

  it.each([[0], [8]])('%i is not final', (code) => {
    expect(FINAL_AUTH_CODES.has(code)).toBe(false);
  });

  it('accepts refunds only from Test Approved and Partially Refunded', () => {
    expect([...REFUNDABLE_CODES].sort((a, b) => a - b)).toEqual([6, 25]);
  });
});
