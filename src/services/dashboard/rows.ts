// The rows of the dashboard's lists, one shape per tab, as services/dashboard/queries.ts reads them and the
// dashboard pages show them.
import type { PaymentFamily } from '../../domain/vocabularies.js';

/** An S2S transaction row; `authOpen` when its authentication can still be approved or declined. */
export interface TransactionRow {
  id: string;
  merchantId: string;
  reference: string;
  amount: number;
  currency: string;
  brand: string;
  ccno: string | null;
  orderStatus: number;
  response: string;
  authOpen: number;
  createdAt: number;
}

/** A /v1/ payment row. */
export interface PaymentRow {
  id: string;
  merchantId: string;
  reference: string | null;
  amount: number;
  currency: string;
  method: string;
  /** The card brand, or the bank or method name for other methods. */
  instrumentLabel: string;
  cardLast4: string;
  status: string;
  declineCode: string | null;
  authOpen: number;
  createdAt: number;
}

/** A checkout session row. */
export interface SessionRow {
  id: string;
  merchantId: string;
  reference: string | null;
  amount: number;
  currency: string;
  status: string;
  paymentId: string | null;
  lastPaymentId: string | null;
  expiresAt: number;
  createdAt: number;
}

/** A chargeback row: the payment (S2S transID or /v1/ id) it disputes. */
export interface ChargebackRow {
  id: string;
  merchantId: string;
  family: PaymentFamily;
  subjectId: string;
  amount: number;
  currency: string;
  reason: string;
  status: string;
  createdAt: number;
}

/** A settlement row, with how many payments and clawbacks it carries. */
export interface SettlementRow {
  id: string;
  merchantId: string;
  currency: string;
  count: number;
  clawbacks: number;
  gross: number;
  fees: number;
  refunds: number;
  adjustments: number;
  net: number;
  status: string;
  payAt: number;
  paidAt: number | null;
  createdAt: number;
}

/** An event row. */
export interface EventRow {
  id: string;
  merchantId: string;
  type: string;
  resourceId: string;
  createdAt: number;
}

/** A delivery row. */
export interface DeliveryRow {
  id: string;
  merchantId: string;
  eventId: string;
  eventType: string;
  url: string;
  status: string;
  manual: number;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
}

/** The row type of each tab. */
export interface TabRows {
  transactions: TransactionRow;
  payments: PaymentRow;
  sessions: SessionRow;
  chargebacks: ChargebackRow;
  settlements: SettlementRow;
  events: EventRow;
  deliveries: DeliveryRow;
}

/** One page: its rows, and the cursor of the next (older) page when there is one. */
export interface DashboardPage<T> {
  rows: T[];
  next: string | null;
}
