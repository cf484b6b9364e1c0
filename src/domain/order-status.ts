// The S2S order_status table of docs/decisions.md: one code, one status text. Changing what a code
// means is a one-line change here; which status may follow which is s2s-status.ts.

/** Every order_status the sandbox uses, by name. */
export const ORDER_STATUS = {
  pending: { code: 0, text: 'Pending' },
  approved: { code: 25, text: 'Test Approved' },
  declined: { code: 24, text: 'Test Declined' },
  cancelled: { code: 3, text: 'Cancelled' },
  expired: { code: 22, text: 'Expired' },
  refundRequested: { code: 8, text: 'Request Processed' },
  refunded: { code: 5, text: 'Refunded' },
  partiallyRefunded: { code: 6, text: 'Partially Refunded' },
  chargeback: { code: 11, text: 'Chargeback' },
} as const;

export type OrderStatusName = keyof typeof ORDER_STATUS;

/** The status text for a numeric code. */
export function statusText(code: number): string {
  for (const entry of Object.values(ORDER_STATUS)) if (entry.code === code) return entry.text;
  throw new Error(`unknown order_status ${code}`);
}
