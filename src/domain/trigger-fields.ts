// The fields `sandbox trigger --set field=value` may choose, per event: one table that the trigger
// checks against, `sandbox trigger --help` prints and docs/disputes-and-settlements.md describes.
// A field goes into the request that creates the event's object (the payment, refund, chargeback
// or checkout session), so the API's own validation judges its value. With --payment only the
// fields the real operation on that existing object takes may be set (a capture's amount, the new
// refund's or chargeback's fields).
import type { EventType } from './event-types.js';

/** The object whose creating request --set fills. */
export type TriggerObject = 'payment' | 'refund' | 'chargeback' | 'checkout session';

/** Fields of each object's creating request a trigger lets you choose; `name.*` is any key under name. */
export const SETTABLE_FIELDS: Record<TriggerObject, readonly string[]> = {
  payment: ['amount', 'currency', 'reference', 'description', 'metadata.*', 'customer.*', 'webhook_url'],
  refund: ['amount', 'reason'],
  chargeback: ['amount', 'reason'],
  'checkout session': ['amount', 'currency', 'reference', 'customer_email', 'expires_in', 'webhook_url'],
};

/** What --set fills for one event: the object it creates, and the fields still taken with --payment. */
export interface TriggerFieldRule {
  object: TriggerObject | null;
  /** With --payment: what the real operation on the existing object takes (the rest is fixed by then). */
  onPayment: readonly string[];
}

const payment = (onPayment: readonly string[] = []): TriggerFieldRule => ({ object: 'payment', onPayment });
const refund: TriggerFieldRule = { object: 'refund', onPayment: SETTABLE_FIELDS.refund };
const chargeback: TriggerFieldRule = { object: 'chargeback', onPayment: SETTABLE_FIELDS.chargeback };
const none: TriggerFieldRule = { object: null, onPayment: [] };
const session: TriggerFieldRule = { object: 'checkout session', onPayment: [] };

/** Per event: the object --set fills and what it still takes with --payment. */
export const TRIGGER_FIELDS: Record<EventType, TriggerFieldRule> = {
  'payment.requires_action': payment(),
  'payment.authorized': payment(),
  'payment.captured': payment(['amount']),
  'payment.declined': payment(),
  'payment.canceled': payment(),
  'payment.expired': payment(),
  'payment.returned': session,
  'refund.created': refund,
  'refund.succeeded': refund,
  'refund.failed': refund,
  'chargeback.created': chargeback,
  'chargeback.won': chargeback,
  'chargeback.lost': chargeback,
  'settlement.created': none,
  'settlement.paid': none,
  'checkout.session.completed': session,
  'checkout.session.expired': session,
  'token.expiring': none,
  'token.updated': none,
};

/** True when `path` (dotted) is one of `fields` or under one of its `name.*`. */
export function fieldListed(fields: readonly string[], path: string): boolean {
  return fields.some((field) =>
    field.endsWith('.*') ? path.startsWith(field.slice(0, -1)) && path.length > field.length - 1 : field === path,
  );
}

/** The fields each event takes, as lines for `sandbox trigger --help`. */
export function triggerFieldLines(): string[] {
  const width = Math.max(...Object.keys(TRIGGER_FIELDS).map((type) => type.length));
  return Object.entries(TRIGGER_FIELDS).map(([type, rule]) => {
    if (!rule.object) return `${type.padEnd(width)}  (none)`;
    const onPayment = rule.onPayment.length ? rule.onPayment.join(', ') : 'none';
    return `${type.padEnd(width)}  ${rule.object}: ${SETTABLE_FIELDS[rule.object].join(', ')}; with --payment: ${onPayment}`;
  });
}
