// The one event serializer: the spec §6.2 envelope plus object "event" (GET /v1/events), and the
// control API's event, which is that view plus what only the sandbox's operator sees.
import * as z from 'zod';
import type { EventRecord } from '../store/events-repo.js';
import { deliveryView } from './delivery.js';
import { iso, isoTime } from './time.js';

/** An event as GET /v1/events answers it: the spec §6.2 envelope plus object. */
export const eventView = z.strictObject({
  id: z.string().describe('evt_...'),
  object: z.literal('event'),
  event: z.string().describe('the event name, e.g. "payment.authorized"'),
  data: z.record(z.string(), z.unknown()).describe('the object the event is about'),
  created_at: isoTime,
});

/** The public event's TS type. */
export type EventView = z.infer<typeof eventView>;

/** An event as the control API lists it: the public event plus its subject and merchant. */
export const controlEventView = eventView.extend({
  resource_id: z.string().describe('the id of the object the event is about (transID, pay_..., rfd_...)'),
  merchant_id: z.string().describe('the merchant the event belongs to, e.g. mer_sandbox'),
});

/** The control event's TS type. */
export type ControlEventView = z.infer<typeof controlEventView>;

/** The event as the API shows it: the webhook envelope plus object: "event". */
export function toEventView(event: EventRecord): EventView {
  return { id: event.id, object: 'event', event: event.type, data: event.data, created_at: iso(event.createdAt) };
}

/** The event as the control API shows it: the public view with its subject and merchant. */
export function toControlEventView(event: EventRecord): ControlEventView {
  return { ...toEventView(event), resource_id: event.resourceId, merchant_id: event.merchantId };
}

/** One event in the control API, with the payload its deliveries carry and the deliveries. */
export const controlEventDetailView = controlEventView.extend({
  payload: z.object({ content_type: z.string(), body: z.string() }).describe('the body as delivered (or as it would be, when never delivered)'),
  deliveries: z.array(deliveryView).describe('newest first'),
});

/** The control event detail's TS type. */
export type ControlEventDetailView = z.infer<typeof controlEventDetailView>;

/** POST /_sandbox/events/trigger: the event asked for, every event the trigger recorded, the objects behind them and the manual delivery. */
export const triggerResultView = z.object({
  type: z.string().describe('the event type asked for'),
  event: controlEventView,
  events: z.array(z.object({ id: z.string(), type: z.string(), resource_id: z.string() })).describe('every event the trigger recorded, oldest first'),
  related: z.record(z.string(), z.string()).describe('the ids of the objects behind the event, e.g. {"payment_id": "pay_..."}'),
  delivery: deliveryView.nullable().describe('the manual delivery to `to`; null without it'),
});

/** The trigger answer's TS type. */
export type TriggerResultView = z.infer<typeof triggerResultView>;
