// The one event serializer: the spec §6.2 envelope plus object "event" (GET /v1/events), and the
// control API's event, which is that view plus what only the sandbox's operator sees.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { Chargeback } from '../store/chargebacks-repo.js';
import type { Delivery } from '../store/deliveries-repo.js';
import type { EventRecord } from '../store/events-repo.js';
import type { Payment } from '../store/payments-repo.js';
import type { StoredToken } from '../store/tokens-repo.js';
import type { V1Refund } from '../store/v1-refunds-repo.js';
import { EVENT_SUBJECTS, EVENT_TYPE_NAMES, EVENT_TYPES, type EventSubject, type EventType } from '../domain/event-types.js';
import { PAYMENT_STATES } from '../domain/payment-state.js';
import { ADVICE_CODES } from '../domain/outcomes.js';
import { expiryMoment } from '../domain/card.js';
import { CHARGEBACK_STATUSES, REFUND_STATUSES } from '../domain/vocabularies.js';
import { checkoutSessionView } from './checkout-session.js';
import { deliveryView, toDeliveryView } from './delivery.js';
import { paymentView } from './payment.js';
import { settlementView } from './settlement.js';
import { iso, isoTime } from './time.js';
import { present } from '../errors.js';

/** The spec §6.1 fields of an S2S transaction, all strings: exactly what its form webhook carries. */
const s2sFields = () => ({
  transID: z.string(),
  reference: z.string(),
  order_status: z.string().describe('the order_status code as text, e.g. "1"'),
  status: z.string(),
  bill_amt: z.string().describe('decimal(10,2) text'),
  bill_currency: z.string(),
  mop: z.string(),
  ccno: z.string(),
  response: z.string(),
});

/** The S2S form webhook (spec §6.1): its fields and nothing else. */
export const s2sWebhookFields = lazySchema(() => z.strictObject(s2sFields()).meta({ id: 'S2SWebhookFields' }));

/** The encrypted S2S form webhook: one field, the cipher of the same query string (docs/encryption.md). */
export const encryptedS2SWebhook = lazySchema(() =>
  z.strictObject({
    data: z.string().describe('base64 AES-256-CBC of the spec §6.1 query string, with the terminal keys'),
  }),
);

/** What data.object says an event is about: the discriminator of every event's data. */
export type EventObject = 'payment' | 'refund' | 'chargeback' | 's2s_transaction' | 'checkout.session' | 'settlement' | 'token';

/** The data of an S2S transaction's event: object "s2s_transaction" and the spec §6.1 fields. */
export const s2sEventData = lazySchema(() =>
  z.looseObject({ object: z.literal('s2s_transaction'), ...s2sFields() }).meta({ id: 'S2SEventData' }),
);

const minor = lazySchema(() => z.number().int().describe('minor units'));

/** The data of a /v1/ payment's event (spec §6.2 payment_id, status, amount, currency, plus what a handler needs). */
export const paymentEventData = lazySchema(() =>
  z
    .looseObject({
      object: z.literal('payment'),
      payment_id: z.string(),
      status: z.enum(PAYMENT_STATES),
      amount: minor(),
      currency: z.string(),
      reference: z.string().nullable(),
      amount_captured: minor(),
      amount_refunded: minor(),
      decline_code: z.string().optional(),
      advice_code: z.enum(ADVICE_CODES).optional().describe('a decline: what retry logic should do'),
      return_reason: z
        .object({ code: z.string(), message: z.string() })
        .optional()
        .describe('payment.returned: the SEPA reason code and its words'),
      metadata: z.record(z.string(), z.string()),
    })
    .meta({ id: 'PaymentEventData' }),
);

/** The data of a token event: the saved card, its expiry, and what stored it for off-session use. */
export const tokenEventData = lazySchema(() =>
  z
    .looseObject({
      object: z.literal('token'),
      token_id: z.string(),
      card: z.object({ brand: z.string(), last4: z.string(), exp_month: z.number().int(), exp_year: z.number().int() }),
      expires_at: isoTime.describe('when the card stops working: the end of its expiry month'),
      off_session_payment: z.string().nullable().describe('the customer-initiated payment that stored it for off-session use'),
      previous_card: z
        .object({ exp_month: z.number().int(), exp_year: z.number().int() })
        .optional()
        .describe('token.updated: the expiry before the renewal'),
      reason: z.literal('renewed_by_issuer').optional().describe('token.updated: why the card changed'),
    })
    .meta({ id: 'TokenEventData' }),
);

/** The data of a /v1/ refund's event. */
export const refundEventData = lazySchema(() =>
  z
    .looseObject({
      object: z.literal('refund'),
      refund_id: z.string(),
      payment_id: z.string(),
      status: z.enum(REFUND_STATUSES),
      amount: minor(),
      currency: z.string(),
      reason: z.string().nullable(),
      failure_reason: z.string().optional(),
      payment_status: z.string().optional().describe("refund.succeeded: the payment's status after the refund"),
      amount_refunded: minor().optional().describe('refund.succeeded: everything refunded on the payment so far'),
    })
    .meta({ id: 'RefundEventData' }),
);

/** The data of a /v1/ payment's chargeback event. */
export const chargebackEventData = lazySchema(() =>
  z
    .looseObject({
      object: z.literal('chargeback'),
      chargeback_id: z.string(),
      payment_id: z.string(),
      amount: minor(),
      currency: z.string(),
      reason: z.string(),
      status: z.enum(CHARGEBACK_STATUSES),
      payment_status: z.string(),
    })
    .meta({ id: 'ChargebackEventData' }),
);

/** The data of a settlement event: the settlement, its id as settlement_id. */
export const settlementEventData = lazySchema(() =>
  z.looseObject({ ...settlementView().omit({ id: true }).shape, settlement_id: z.string() }).meta({ id: 'SettlementEventData' }),
);

/** The data of a checkout session event: the session and its payment, as the API shows them. */
export const checkoutSessionEventData = lazySchema(() =>
  z
    .looseObject({
      ...checkoutSessionView().shape,
      payment: paymentView()
        .nullable()
        .describe('the payment that completed the session, as GET /v1/payments/{id} shows it; null for an expired session'),
    })
    .meta({ id: 'CheckoutSessionEventData' }),
);

/** A family's data, or an S2S transaction's: told apart by data.object. */
function eitherFamily(v1: z.ZodObject, object: EventObject) {
  const mapping = {
    [object]: `#/components/schemas/${present(z.globalRegistry.get(v1), "the data schema's metadata").id}`,
    s2s_transaction: '#/components/schemas/S2SEventData',
  };
  return z.discriminatedUnion('object', [v1, s2sEventData()]).meta({ discriminator: { propertyName: 'object', mapping } });
}

/** The data schema of a subject's events: S2S transactions' events carry the spec §6.1 fields, /v1/ objects' events their own. */
function subjectDataSchema(subject: EventSubject): z.ZodType {
  switch (subject) {
    case 'payment':
      return eitherFamily(paymentEventData(), 'payment');
    case 'refund':
      return eitherFamily(refundEventData(), 'refund');
    case 'chargeback':
      return eitherFamily(chargebackEventData(), 'chargeback');
    case 'settlement':
      return settlementEventData();
    case 'checkout.session':
      return checkoutSessionEventData();
    case 'token':
      return tokenEventData();
    default: {
      // A subject added above without a schema here does not compile.
      const unhandled: never = subject;
      throw new Error(`no event data schema for ${unhandled}`);
    }
  }
}

let eventDataSchemas: Record<EventType, z.ZodType> | undefined;

/** An event name's data schema; the first call builds every name's. */
function eventDataSchema(type: EventType): z.ZodType {
  eventDataSchemas ??= Object.fromEntries(EVENT_TYPE_NAMES.map((name) => [name, subjectDataSchema(EVENT_SUBJECTS[name])])) as Record<
    EventType,
    z.ZodType
  >;
  return eventDataSchemas[type];
}

/** An event's data as stored: its schema's fields without data.object, which eventData() adds when the event is shown. */
type Stored<S extends z.ZodObject> = z.output<z.ZodObject<Omit<S['shape'], 'object'>>>;

/** The stored data of an S2S transaction's event: the spec §6.1 fields. */
export type S2SEventFields = Stored<ReturnType<typeof s2sEventData>>;
/** The stored data of a /v1/ payment's event. */
export type PaymentEventFields = Stored<ReturnType<typeof paymentEventData>>;
/** The stored data of a /v1/ refund's event. */
export type RefundEventFields = Stored<ReturnType<typeof refundEventData>>;
/** The stored data of a /v1/ payment's chargeback event. */
export type ChargebackEventFields = Stored<ReturnType<typeof chargebackEventData>>;

/** The stored data of each subject's events. */
interface SubjectData {
  payment: PaymentEventFields | S2SEventFields;
  refund: RefundEventFields | S2SEventFields;
  chargeback: ChargebackEventFields | S2SEventFields;
  settlement: Stored<ReturnType<typeof settlementEventData>>;
  'checkout.session': Stored<ReturnType<typeof checkoutSessionEventData>>;
  token: Stored<ReturnType<typeof tokenEventData>>;
}

/** The data an event named T stores, as its view schema describes it. */
export type EventDataOf<T extends EventType> = SubjectData[(typeof EVENT_SUBJECTS)[T]];

/** One event to record: its name and that name's data. */
export type NewEvent = { [T in EventType]: { type: T; data: EventDataOf<T> } }[EventType];

/** A /v1/ payment's event data: spec §6.2 payment_id, status, amount, currency, plus what a handler needs. */
export function toPaymentEventData(payment: Payment): PaymentEventFields {
  return {
    payment_id: payment.id,
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    reference: payment.reference,
    amount_captured: payment.amountCaptured,
    amount_refunded: payment.amountRefunded,
    ...(payment.declineCode ? { decline_code: payment.declineCode } : {}),
    ...(payment.adviceCode ? { advice_code: payment.adviceCode } : {}),
    ...(payment.returnReason ? { return_reason: payment.returnReason } : {}),
    metadata: payment.metadata,
  };
}

/** A card's expiry month and year. */
export interface TokenExpiry {
  exp_month: number;
  exp_year: number;
}

/** A token event's data: the token and its card as GET /v1/tokens/{id} shows them; `previous`, for token.updated, the expiry the issuer renewed. */
export function toTokenEventData(token: StoredToken, previous?: TokenExpiry): Stored<ReturnType<typeof tokenEventData>> {
  return {
    token_id: token.id,
    card: { brand: token.brand, last4: token.last4, exp_month: token.expMonth, exp_year: token.expYear },
    expires_at: iso(expiryMoment(token.expMonth, token.expYear)),
    off_session_payment: token.offSessionPaymentId,
    ...(previous ? { previous_card: previous, reason: 'renewed_by_issuer' as const } : {}),
  };
}

/** A /v1/ refund's event data: the refund, and the payment it belongs to. */
export function toRefundEventData(refund: V1Refund): RefundEventFields {
  return {
    refund_id: refund.id,
    payment_id: refund.paymentId,
    status: refund.status,
    amount: refund.amount,
    currency: refund.currency,
    reason: refund.reason,
    ...(refund.failureReason ? { failure_reason: refund.failureReason } : {}),
  };
}

/** A /v1/ payment's chargeback event data: the chargeback and the payment's status after it. */
export function toChargebackEventData(cb: Chargeback, paymentStatus: string): ChargebackEventFields {
  return {
    chargeback_id: cb.id,
    payment_id: cb.subjectId,
    amount: cb.amount,
    currency: cb.currency,
    reason: cb.reason,
    status: cb.status,
    payment_status: paymentStatus,
  };
}

/** What an event is about, from its name and stored data: an S2S transaction's data holds its transID. */
export function eventObject(type: string, data: Record<string, unknown>): EventObject {
  if (typeof data.transID === 'string') return 's2s_transaction';
  if (type.startsWith('checkout.session.')) return 'checkout.session';
  return type.slice(0, type.indexOf('.')) as EventObject;
}

/**
 * An event's data as the API and every JSON webhook show it: data.object first, then the stored
 * fields. Derived rather than stored, so events recorded before it existed carry it too, and the
 * S2S form webhook, built from the stored fields, keeps exactly the spec §6.1 set.
 */
export function eventData(event: EventRecord): Record<string, unknown> {
  return { object: eventObject(event.type, event.data), ...event.data };
}

/** The name of an event's component: payment.authorized -> PaymentAuthorizedEvent. */
function eventComponent(type: string): string {
  return `${type
    .split(/[._]/)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('')}Event`;
}

/** The webhook body of one event name (spec §6.2 envelope), as OpenAPI's webhooks show it. */
export function eventEnvelopeSchema(type: EventType) {
  return z.strictObject({ event: z.literal(type), id: z.string().describe('evt_...'), data: eventDataSchema(type), created_at: isoTime });
}

/** An event as GET /v1/events answers it: the spec §6.2 envelope plus object, with each event name's data. */
export const eventView = lazySchema(() =>
  z
    .discriminatedUnion(
      'event',
      EVENT_TYPE_NAMES.map((type) =>
        eventEnvelopeSchema(type)
          .extend({ object: z.literal('event') })
          .meta({ id: eventComponent(type), description: EVENT_TYPES[type] }),
      ) as unknown as [z.ZodObject, ...z.ZodObject[]],
    )
    .meta({
      id: 'Event',
      discriminator: {
        propertyName: 'event',
        mapping: Object.fromEntries(EVENT_TYPE_NAMES.map((type) => [type, `#/components/schemas/${eventComponent(type)}`])),
      },
    }),
);

/** The public event's TS type. */
export interface EventView {
  id: string;
  object: 'event';
  event: string;
  data: Record<string, unknown>;
  created_at: string;
}

/** An event as the control API lists it: the public event plus its subject and merchant. */
export const controlEventView = lazySchema(() =>
  z
    .strictObject({
      id: z.string().describe('evt_...'),
      object: z.literal('event'),
      event: z.enum(EVENT_TYPE_NAMES).describe('the event name, e.g. "payment.authorized"'),
      data: z.record(z.string(), z.unknown()).describe('the object the event is about (as in the Event schema of its name)'),
      created_at: isoTime,
      resource_id: z.string().describe('the id of the object the event is about (transID, pay_..., rfd_...)'),
      merchant_id: z.string().describe('the merchant the event belongs to, e.g. mer_sandbox'),
    })
    .meta({ id: 'ControlEvent' }),
);

/** The control event's TS type. */
export type ControlEventView = EventView & { resource_id: string; merchant_id: string };

/** The event as the API shows it: the webhook envelope plus object: "event". */
export function toEventView(event: EventRecord): EventView {
  return { id: event.id, object: 'event', event: event.type, data: eventData(event), created_at: iso(event.createdAt) };
}

/** The event as the control API shows it: the public view with its subject and merchant. */
export function toControlEventView(event: EventRecord): ControlEventView {
  return { ...toEventView(event), resource_id: event.resourceId, merchant_id: event.merchantId };
}

/** One event in the control API, with the payload its deliveries carry and the deliveries. */
export const controlEventDetailView = lazySchema(() =>
  controlEventView().extend({
    payload: z
      .object({ content_type: z.string(), body: z.string() })
      .describe('the body as delivered (or as it would be, when never delivered)'),
    deliveries: z.array(deliveryView()).describe('newest first'),
  }),
);

/** The control event detail's TS type. */
export type ControlEventDetailView = ControlEventView & Pick<z.infer<ReturnType<typeof controlEventDetailView>>, 'payload' | 'deliveries'>;

/** An event with the body as delivered (or as it would be) and its deliveries, newest first. */
export function toControlEventDetailView(
  event: EventRecord,
  payload: { contentType: string; body: string },
  deliveries: Delivery[],
): ControlEventDetailView {
  return {
    ...toControlEventView(event),
    payload: { content_type: payload.contentType, body: payload.body },
    deliveries: deliveries.map(toDeliveryView),
  };
}

/** POST /_sandbox/events/trigger: the event asked for, every event the trigger recorded, the objects behind them and the manual delivery. */
export const triggerResultView = lazySchema(() =>
  z.object({
    type: z.enum(EVENT_TYPE_NAMES).describe('the event type asked for'),
    event: controlEventView(),
    events: z
      .array(z.object({ id: z.string(), type: z.string(), resource_id: z.string() }))
      .describe('every event the trigger recorded, oldest first'),
    related: z.record(z.string(), z.string()).describe('the ids of the objects behind the event, e.g. {"payment_id": "pay_..."}'),
    delivery: deliveryView().nullable().describe('the manual delivery to `to`; null without it'),
  }),
);

/** The trigger answer's TS type. */
export type TriggerResultView = z.infer<ReturnType<typeof triggerResultView>>;

/** The trigger answer: the control route's body and what the library's trigger() resolves with. */
export function toTriggerResultView(
  type: EventType,
  result: { event: EventRecord; events: EventRecord[]; related: Record<string, string> },
  delivery: TriggerResultView['delivery'],
) {
  return {
    type,
    event: toControlEventView(result.event),
    events: result.events.map((e) => ({ id: e.id, type: e.type, resource_id: e.resourceId })),
    related: result.related,
    delivery,
  };
}

/** What trigger() of the library resolves with: the control route's answer. */
export type TriggeredEvent = ReturnType<typeof toTriggerResultView>;
