// How a /v1/ payment begins, whether a request's card or hosted checkout's iDEAL and SEPA create it:
// in `processing`, nothing captured or refunded yet, answered by the acquirer of its routing.
import { newId } from '../domain/ids.js';
import { ROUTING_ACQUIRERS } from '../domain/routing.js';
import type { Payment } from '../store/payments-repo.js';

/** The fields every new payment starts with alike, which newPayment fills in. */
type StartsAlike =
  | 'id'
  | 'acquirer'
  | 'amountCaptured'
  | 'amountRefunded'
  | 'status'
  | 'declineCode'
  | 'failureMessage'
  | 'adviceCode'
  | 'returnReason';

/** What tells one new payment from another. */
export type PaymentStart = Omit<Payment, StartsAlike | 'createdAt' | 'updatedAt'> & { routing: keyof typeof ROUTING_ACQUIRERS };

/** What hosted checkout's iDEAL and SEPA payments are made from: the method's label (bank name, "SEPA") and the IBAN's last four stand for the card. */
export interface WithoutCardInput {
  amount: number;
  currency: string;
  method: string;
  label: string;
  last4: string;
  customer: Record<string, string>;
  reference: string | null;
  metadata: Record<string, string>;
  webhookUrl: string | null;
}

/** What a payment without a card (iDEAL, SEPA) has where a card payment has its request's fields: smart routing, captured at once, no 3-D Secure. */
export const WITHOUT_CARD = {
  routing: 'smart',
  cardExpMonth: 0,
  cardExpYear: 0,
  token: null,
  description: null,
  capture: true,
  returnUrl: null,
  initiator: 'customer',
  setupFutureUsage: null,
  script: { challenge: false, authorisation: { result: 'approve' }, refundFails: false, chargeback: false },
} satisfies Partial<PaymentStart>;

/**
 * A new payment, not stored yet, created at `now`: a literal of its whole shape, not
 * `{ ...start, id, ... }`, which was 5 % of the main thread's time per create (CONTRIBUTING.md:
 * copies that add fields on the request path).
 */
export function newPayment(start: PaymentStart, now: number): Payment {
  return {
    merchantId: start.merchantId,
    amount: start.amount,
    currency: start.currency,
    method: start.method,
    routing: start.routing,
    customer: start.customer,
    instrumentLabel: start.instrumentLabel,
    cardLast4: start.cardLast4,
    cardExpMonth: start.cardExpMonth,
    cardExpYear: start.cardExpYear,
    token: start.token,
    reference: start.reference,
    description: start.description,
    metadata: start.metadata,
    capture: start.capture,
    webhookUrl: start.webhookUrl,
    returnUrl: start.returnUrl,
    initiator: start.initiator,
    setupFutureUsage: start.setupFutureUsage,
    script: start.script,
    id: newId('pay'),
    acquirer: ROUTING_ACQUIRERS[start.routing],
    amountCaptured: 0,
    amountRefunded: 0,
    status: 'processing',
    declineCode: null,
    failureMessage: null,
    adviceCode: null,
    returnReason: null,
    createdAt: now,
    updatedAt: now,
  };
}
