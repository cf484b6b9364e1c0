// Publishing a change: the one call every service makes when something a merchant or the
// dashboard may hear about happens. Inside the caller's transaction it records the event and
// queues one delivery per recipient (the webhook_url of the object's own request, in its format,
// and every enabled endpoint of the merchant subscribed to the type); its activity-stream entries
// follow once the batch holding that transaction has committed, so a subscriber that reads the
// state on hearing of a change finds it written.
import { subscribes } from '../domain/event-types.js';
import type { EventRecord } from '../store/events-repo.js';
import type { DeliveryTarget } from '../webhooks/outbox.js';
import { eventEnvelope, s2sWebhookBody } from '../views/webhook-body.js';
import type { NewEvent } from '../views/event.js';
import type { Activity } from '../runtime/activity.js';
import type { ServiceDeps } from './deps.js';
import { present } from '../errors.js';

/** The webhook_url a request named, and the body format it gets. */
export type RequestWebhook =
  /** A /v1/ object's URL: the spec §6.2 JSON envelope, signed with the merchant's secret. */
  | { format: 'envelope'; url: string }
  /** An S2S transaction's URL: the spec §6.1 query string of the event's data, or `data=<cipher>` with aes256 under the terminal's keys. */
  | { format: 's2s-form'; url: string; encryption: 'aes256' | 'none'; terNo: number };

/** An object's new status on the activity stream (the dashboard refreshes on it). */
export interface StatusEntry {
  kind: Extract<Activity['kind'], 'transaction.updated' | 'payment.updated' | 'session.updated'>;
  data: Record<string, unknown>;
}

/** One change to publish. */
export interface Change {
  merchantId: string;
  /** The object the change is about (payment id, transID, session or settlement id). */
  resourceId: string;
  /** The event merchants hear; absent for a change only the activity stream shows (a transaction left pending). */
  event?: NewEvent;
  /** Where the object's own request asked its webhooks to go; absent when it named no URL. */
  webhook?: RequestWebhook;
  /** The object's status entry on the activity stream. */
  status?: StatusEntry;
}

/** Records events and queues their deliveries; call inside store.tx. */
export class EventPublisher {
  constructor(private readonly deps: ServiceDeps) {}

  /** Publishes `change` in the caller's transaction; returns its event, if it has one. */
  publish(change: Change): EventRecord | undefined {
    const { outbox, clock } = this.deps;
    const at = clock.now();
    const entries: Activity[] = change.status ? [{ kind: change.status.kind, at, data: change.status.data }] : [];
    let event: EventRecord | undefined;
    if (change.event) {
      event = outbox.recordEvent(change.merchantId, change.event.type, change.resourceId, change.event.data);
      for (const target of this.targets(event, change.webhook)) outbox.enqueue(event, target);
      entries.push({
        kind: 'event.created',
        at: event.createdAt,
        data: { id: event.id, event: event.type, resource_id: event.resourceId },
      });
    }
    if (entries.length > 0)
      this.deps.store.batch.afterCommit(() => {
        for (const entry of entries) this.deps.activity.publish(entry);
      });
    return event;
  }

  /** Sends a recorded event again as one manual delivery (a replay, a trigger's `to`); returns the delivery's id. Call inside store.tx. */
  resend(event: EventRecord, target: Omit<DeliveryTarget, 'manual'>): string {
    return this.deps.outbox.enqueue(event, { ...target, manual: true });
  }

  /** The request's own URL first, then each subscribed endpoint, in the order they were registered. */
  private targets(event: EventRecord, webhook: RequestWebhook | undefined): DeliveryTarget[] {
    const targets: DeliveryTarget[] = [];
    if (webhook?.format === 'envelope') {
      targets.push({ url: webhook.url, endpointId: null, contentType: 'application/json', body: eventEnvelope(event) });
    } else if (webhook?.format === 's2s-form') {
      const keys = present(this.deps.store.credentials.terminal(webhook.terNo), `terminal ${webhook.terNo}`);
      // An S2S event's data is the spec §6.1 field set, every value a string.
      const body = s2sWebhookBody(event.data as Record<string, string>, webhook.encryption, keys);
      targets.push({ url: webhook.url, endpointId: null, contentType: 'application/x-www-form-urlencoded', body });
    }
    const endpoints = this.deps.store.webhookEndpoints.enabledFor(event.merchantId).filter((e) => subscribes(e.events, event.type));
    // Registered endpoints get the JSON envelope whatever the family (S2S events included).
    const envelope = endpoints.length > 0 ? eventEnvelope(event) : '';
    for (const endpoint of endpoints)
      targets.push({ url: endpoint.url, endpointId: endpoint.id, contentType: 'application/json', body: envelope });
    return targets;
  }
}
