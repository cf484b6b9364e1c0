// Publishing an event: record it, then queue one delivery per target. The single place where
// events fan out, so every emitter (S2S, /v1/, checkout, chargebacks) delivers the same way.
import type { EventRecord } from '../store/events-repo.js';
import type { DeliveryTarget } from '../webhooks/outbox.js';
import { eventEnvelope } from '../webhooks/payloads.js';
import type { ServiceDeps } from './deps.js';

/** An event to publish; `direct` builds the deliveries to URLs given in the request itself. */
export interface PublishInput {
  merchantId: string;
  type: string;
  resourceId: string;
  data: Record<string, unknown>;
  direct?: (event: EventRecord) => DeliveryTarget[];
}

/** Extra fan-out (registered webhook endpoints) plugged in by the services that own it. */
export type FanOut = (event: EventRecord) => DeliveryTarget[];

/** Records events and queues their deliveries; call inside store.tx. */
export class EventPublisher {
  private readonly fanOuts: FanOut[] = [];

  constructor(private readonly deps: ServiceDeps) {}

  /** Adds a source of extra targets for every event (e.g. subscribed webhook endpoints). */
  addFanOut(fanOut: FanOut): void {
    this.fanOuts.push(fanOut);
  }

  /** Records the event and queues its deliveries; returns the event. */
  publish(input: PublishInput): EventRecord {
    const event = this.deps.outbox.recordEvent(input.merchantId, input.type, input.resourceId, input.data);
    const targets = [...(input.direct?.(event) ?? []), ...this.fanOuts.flatMap((fanOut) => fanOut(event))];
    for (const target of targets) this.deps.outbox.enqueue(event, target);
    return event;
  }

  /** A JSON envelope delivery of `event` to a URL signed with the merchant's secret. */
  static jsonTarget(event: EventRecord, url: string): DeliveryTarget {
    return { url, endpointId: null, contentType: 'application/json', body: eventEnvelope(event) };
  }
}
