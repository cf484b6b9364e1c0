// The small vocabularies of the sandbox, each written once as an `as const` array: the store's
// types, the zod enums of requests and answers, the dashboard's filters, the snapshot checks, the
// CLI's help and the library's option types all derive from these. The larger tables have modules of
// their own: payment states (payment-state.ts), S2S order_status (order-status.ts), event names
// (event-types.ts), test cards, OTPs and VPAs (outcomes.ts), iDEAL outcomes (local-methods.ts).
// The migrations' CHECK constraints stay as shipped; test/unit/vocabularies.test.ts holds them equal
// to these, and test/docs/docs-tables.test.ts holds the docs' copies equal.

/** The six payment modes (`mop`) an S2S payment is made with (spec §2.1). */
export const MOPS = ['CC', 'DC', 'NB', 'WALLET', 'UPICOLLECT', 'QRINTENT'] as const;
/** One payment mode. */
export type Mop = (typeof MOPS)[number];

/** A delivery that is over: succeeded (a 2xx came back) or failed (retries exhausted). */
export const FINAL_DELIVERY_STATUSES = ['succeeded', 'failed'] as const;
/** pending: waiting for its next attempt; then one of the final statuses. */
export const DELIVERY_STATUSES = ['pending', ...FINAL_DELIVERY_STATUSES] as const;
/** One delivery status. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
/** What waitForDelivery and `sandbox wait --status` wait for: a final status, or any delivery at all. */
export const DELIVERY_WAIT_STATUSES = [...FINAL_DELIVERY_STATUSES, 'any'] as const;
/** One status to wait for. */
export type DeliveryWaitStatus = (typeof DELIVERY_WAIT_STATUSES)[number];

/** A refund (S2S or /v1/) is pending until its completion job runs; then succeeded or failed. */
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
/** One refund status. */
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** Why a /v1/ refund is made, as POST /v1/refunds takes it. */
export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;
/** One refund reason. */
export type RefundReason = (typeof REFUND_REASONS)[number];

/** A chargeback is open until decided: won (for the merchant) or lost (for the customer). */
export const CHARGEBACK_STATUSES = ['open', 'won', 'lost'] as const;
/** One chargeback status. */
export type ChargebackStatus = (typeof CHARGEBACK_STATUSES)[number];

/** The chargeback reasons a merchant meets most (the familiar card-network categories). */
export const CHARGEBACK_REASONS = [
  'fraudulent',
  'product_not_received',
  'duplicate',
  'unrecognized',
  'credit_not_processed',
  'general',
] as const;
/** One chargeback reason. */
export type ChargebackReason = (typeof CHARGEBACK_REASONS)[number];

/** A checkout session is open until paid (complete) or out of time / ended by the merchant (expired). */
export const CHECKOUT_SESSION_STATUSES = ['open', 'complete', 'expired'] as const;
/** One checkout session status. */
export type CheckoutStatus = (typeof CHECKOUT_SESSION_STATUSES)[number];

/** The payment methods a checkout session can offer. */
export const CHECKOUT_METHODS = ['card', 'ideal', 'sepa'] as const;
/** One checkout method. */
export type CheckoutMethod = (typeof CHECKOUT_METHODS)[number];

/** A settlement is created when batched and paid when the payout happened. */
export const SETTLEMENT_STATUSES = ['created', 'paid'] as const;
/** One settlement status. */
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

/** Which page a challenge shows the customer. */
export const CHALLENGE_KINDS = ['otp', 'bank', 'wallet', 'upi', 'qr'] as const;
/** One challenge kind. */
export type ChallengeKind = (typeof CHALLENGE_KINDS)[number];

/** A challenge is open until the customer (or the control API, or the clock) completes it. */
export const CHALLENGE_STATES = ['open', 'passed', 'failed', 'cancelled', 'expired'] as const;
/** One challenge state. */
export type ChallengeState = (typeof CHALLENGE_STATES)[number];

/** The outcomes the control API, `sandbox authenticate` and the library's authenticate() take for an open challenge. */
export const AUTHENTICATION_OUTCOMES = ['approve', 'decline', 'cancel', 'expire'] as const;
/** One authentication outcome. */
export type AuthenticationOutcome = (typeof AUTHENTICATION_OUTCOMES)[number];

/** Every signature mode, as --signature, SANDBOX_SIGNATURE and an endpoint's `signature` take it. */
export const SIGNATURE_MODES = ['plain', 'timestamped', 'standard'] as const;
/** How webhooks are signed. */
export type SignatureMode = (typeof SIGNATURE_MODES)[number];

/** Where a fault rule applies: everywhere, one registered endpoint or URL (webhooks), or one route (API faults). */
export const FAULT_SCOPES = ['global', 'endpoint', 'url', 'route'] as const;
/** One fault rule scope. */
export type FaultScope = (typeof FAULT_SCOPES)[number];

/** Who set a fault rule: flag (--faults at start), api (the control API) or scenario (a scenario file or document). */
export const FAULT_SOURCES = ['flag', 'api', 'scenario'] as const;
/** One fault rule source. */
export type FaultSource = (typeof FAULT_SOURCES)[number];

/** Who set a rule, in words, by its source: the CLI's table and the dashboard's Faults page. */
export const FAULT_SOURCE_LABELS: Record<FaultSource, string> = {
  flag: '--faults',
  api: 'control API',
  scenario: 'scenario file',
};

/** The lists the dashboard shows, one tab each. */
export const DASHBOARD_TABS = ['transactions', 'payments', 'sessions', 'chargebacks', 'settlements', 'events', 'deliveries'] as const;
/** One dashboard tab. */
export type DashboardTab = (typeof DASHBOARD_TABS)[number];

/** The two payment families: S2S transactions (a transID) and /v1/ payments (pay_...). */
export const PAYMENT_FAMILIES = ['s2s', 'v1'] as const;
/** One payment family. */
export type PaymentFamily = (typeof PAYMENT_FAMILIES)[number];

/** What a settlement claws back: a refund, a lost chargeback or a SEPA return of a payment it already paid out. */
export const ADJUSTMENT_KINDS = ['refund', 'chargeback', 'return'] as const;
/** One clawback kind. */
export type AdjustmentKind = (typeof ADJUSTMENT_KINDS)[number];

/** A vocabulary as a sentence lists it, for messages and descriptions: `a, b or c`, or `"a", "b" or "c"` with `quoted`. */
export function orList(values: readonly string[], quoted = false): string {
  const words = quoted ? values.map((value) => JSON.stringify(value)) : [...values];
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/** Who starts a /v1/ payment: the customer, present (the default), or the merchant on a stored token with nobody present. */
export const PAYMENT_INITIATORS = ['customer', 'merchant'] as const;
/** What a customer-initiated payment may set up for later: its card kept for merchant-initiated charges. */
export const SETUP_FUTURE_USAGES = ['off_session'] as const;
/** Where a request of the request journal came: the API, a customer page, the control plane. */
export const JOURNAL_SURFACES = ['api', 'page', 'control'] as const;
/** One initiator. */
export type PaymentInitiator = (typeof PAYMENT_INITIATORS)[number];
