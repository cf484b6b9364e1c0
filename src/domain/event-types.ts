// The event names the sandbox publishes (listed in docs/decisions.md), each with when it fires. Webhook endpoint subscriptions are
// checked against this list, and docs/webhook-endpoints.md shows it.
import { closestNames } from './closest-names.js';

/** Every event name a merchant can subscribe to, with when it fires. */
export const EVENT_TYPES = {
  'payment.requires_action': 'a payment needs the customer to authenticate (3-D Secure, bank, UPI or QR page)',
  'payment.authorized': 'a payment is authorized (S2S: order_status 25 Test Approved)',
  'payment.captured': 'an authorized /v1/ payment is captured, in full or in part',
  'payment.declined': 'the issuer declined, or authentication failed (S2S: order_status 24)',
  'payment.canceled': 'the customer pressed Cancel, or the merchant canceled an authorized payment (S2S: 3)',
  'payment.expired': 'authentication was not completed in time (S2S: 22)',
  'refund.created': 'a refund was accepted and is being processed',
  'refund.succeeded': 'a refund completed (S2S: order_status 5 Refunded or 6 Partially Refunded)',
  'refund.failed': 'a refund could not be completed (test card 4000000000005126)',
  'chargeback.created': 'a chargeback was opened on a payment (S2S: order_status 11)',
  'chargeback.won': 'a chargeback was decided for the merchant',
  'chargeback.lost': 'a chargeback was decided for the customer',
  'settlement.created': 'a settlement batch of captured payments was created',
  'settlement.paid': 'a settlement batch was paid out',
  'checkout.session.completed': 'a hosted checkout session ended in a successful payment',
  'checkout.session.expired': 'a hosted checkout session expired unused',
} as const;

/** One event name. */
export type EventType = keyof typeof EVENT_TYPES;

/** The /v1/ object an event's data describes (an S2S transaction's payment, refund and chargeback events carry its spec §6.1 fields instead). */
export type EventSubject = 'payment' | 'refund' | 'chargeback' | 'settlement' | 'checkout.session';

/** Each event name's subject (what its data describes): a new event name does not compile until it is listed here. */
export const EVENT_SUBJECTS = {
  'payment.requires_action': 'payment',
  'payment.authorized': 'payment',
  'payment.captured': 'payment',
  'payment.declined': 'payment',
  'payment.canceled': 'payment',
  'payment.expired': 'payment',
  'refund.created': 'refund',
  'refund.succeeded': 'refund',
  'refund.failed': 'refund',
  'chargeback.created': 'chargeback',
  'chargeback.won': 'chargeback',
  'chargeback.lost': 'chargeback',
  'settlement.created': 'settlement',
  'settlement.paid': 'settlement',
  'checkout.session.completed': 'checkout.session',
  'checkout.session.expired': 'checkout.session',
} as const satisfies Record<EventType, EventSubject>;

/** An event name an S2S transaction publishes too: its payment, refund and chargeback events, with the spec §6.1 fields as data. */
export type TransactionEventType = {
  [T in EventType]: (typeof EVENT_SUBJECTS)[T] extends 'payment' | 'refund' | 'chargeback' ? T : never;
}[EventType];

/** The event names, in the docs/decisions.md order. */
export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as EventType[];

/** True for a known event name. */
export function isEventType(name: string): name is EventType {
  return Object.hasOwn(EVENT_TYPES, name);
}

/** True when a subscription (a list of names, or ['*']) covers `type`. */
export function subscribes(events: readonly string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

/**
 * Why `name` (given as `field`) is not an event name, with the closest names (a typo such as
 * payment.authorised) and every known one; undefined for a known name. The one check behind
 * `sandbox trigger`, `sandbox wait --event` and waitForDelivery({ event }).
 */
export function unknownEventProblem(field: string, name: string): string | undefined {
  if (isEventType(name)) return undefined;
  const closest = closestNames(name, EVENT_TYPE_NAMES);
  const hint = closest.length ? ` did you mean ${closest.join(' or ')}?` : '';
  return `${field} ${JSON.stringify(name)} is not an event name;${hint} use one of: ${EVENT_TYPE_NAMES.join(', ')}`;
}
