import { describe, expect, it } from 'vitest';
import { ORDER_STATUS, statusText } from '../../src/domain/order-status.js';

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

  // Which status may follow which (final for authentication, refundable, disputable) is the S2S
  // status table's, tested in s2s-status.test.ts.
});
