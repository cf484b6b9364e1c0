// The shapes of `sandbox trigger`: what a trigger request asks for, what it produced, the
// services it drives, and what its new objects are made with (src/services/triggers/triggers.ts runs it).
import type { EventType } from '../../domain/event-types.js';
import type { EventRecord } from '../../store/events-repo.js';
import type { Payment } from '../../store/payments-repo.js';
import type { Transaction } from '../../store/transactions-repo.js';
import type { Authentication } from '../authentication.js';
import type { Chargebacks } from '../chargebacks.js';
import type { CheckoutPayments } from '../checkout-payments.js';
import type { CheckoutSessions } from '../checkout-sessions.js';
import type { Deliveries } from '../deliveries.js';
import type { ServiceDeps } from '../deps.js';
import type { JobRunner } from '../job-runner.js';
import type { Payments } from '../payments.js';
import type { Settlements } from '../settlements.js';
import type { V1Refunds } from '../v1-refunds.js';
import type { Tokens } from '../tokens.js';

/** What the trigger makes its new objects with: 2000 minor units of the merchant's currency (EUR 20.00 for the fixtures'), and where a 3-D Secure customer would return. */
export const TRIGGER_DEFAULTS = { amount: 2000, returnUrl: 'https://shop.example/return' } as const;

/** One trigger request. */
export interface TriggerInput {
  type: EventType;
  /** An existing /v1/ payment (pay_...) or S2S transID to work on. */
  paymentId?: string;
  /** Also deliver the event to this URL (a manual delivery, tried once). */
  to?: string;
  /** Whose new objects these are (default: the first merchant of the fixtures, mer_sandbox). */
  merchantId?: string;
  /** Fields of the request that creates the event's object, by dotted path (domain/trigger-fields.ts says which). */
  set?: Record<string, unknown>;
}

/** The events of a /v1/ payment and its refunds. */
export type PaymentEventType = Exclude<Extract<EventType, `payment.${string}` | `refund.${string}`>, 'payment.returned'>;

/** The ids of the objects a triggered event is about. */
export type Related = Partial<
  Record<'payment_id' | 'transID' | 'refund_id' | 'chargeback_id' | 'settlement_id' | 'checkout_session_id' | 'token_id', string>
>;

/** What a trigger produced: the event asked for, every event its work recorded, and the objects. */
export interface TriggerResult {
  event: EventRecord;
  events: EventRecord[];
  related: Related;
  /** The manual delivery to `to`, when asked for. */
  deliveryId: string | null;
}

/** An existing payment of either family. */
export type Existing = { family: 'v1'; payment: Payment } | { family: 's2s'; transaction: Transaction };

/** The services a trigger drives. */
export interface TriggerServices {
  jobs: JobRunner;
  auth: Authentication;
  payments: Payments;
  v1Refunds: V1Refunds;
  chargebacks: Chargebacks;
  settlements: Settlements;
  checkout: CheckoutSessions;
  checkoutPayments: CheckoutPayments;
  deliveries: Deliveries;
  tokens: Tokens;
}

/** What each way of producing an event works with: the store, clock and config, and the services. */
export interface TriggerKit {
  deps: ServiceDeps;
  s: TriggerServices;
}

/** The object a triggered event is about (its resource id) and the ids to report. */
export interface Driven {
  resourceId: string;
  related: Related;
}
