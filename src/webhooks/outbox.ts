// The outbox: events and the deliveries that carry them, written inside the caller's transaction
// so a state change and its webhooks commit (or roll back) together. The worker is woken after.
import { newId } from '../domain/ids.js';
import type { Clock } from '../services/clock.js';
import type { ActivityBus } from '../services/activity.js';
import type { Store } from '../store/store.js';
import type { EventRecord } from '../store/events-repo.js';

/** Where one delivery of an event goes, and what it carries. */
export interface DeliveryTarget {
  url: string;
  /** A registered endpoint signs with its own secret(s); null means the merchant's signing secret. */
  endpointId: string | null;
  contentType: 'application/json' | 'application/x-www-form-urlencoded';
  body: string;
  /** Replays and triggers sent by hand are tried once, never retried by themselves. */
  manual?: boolean;
}

/** Writes events and deliveries; must be called inside a db transaction by services. */
export class Outbox {
  /** Called after a delivery is queued; start-server.ts sets it to wake the delivery worker. */
  onEnqueue: () => void = () => {};

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly activity: ActivityBus,
  ) {}

  /** Records an event (the merchant-visible fact) and returns it. */
  recordEvent(merchantId: string, type: string, resourceId: string, data: Record<string, unknown>): EventRecord {
    const event: EventRecord = { id: newId('evt'), merchantId, type, resourceId, data, createdAt: this.clock.now() };
    this.store.events.insert(event);
    // Published once the caller's synchronous transaction has run; its batch commits a loop turn later (group-commit.ts).
    queueMicrotask(() => this.activity.publish({ kind: 'event.created', at: event.createdAt, data: { id: event.id, type, resource_id: resourceId } }));
    return event;
  }

  /** Queues one delivery of `event` to `target`, due now; returns its id. */
  enqueue(event: EventRecord, target: DeliveryTarget): string {
    const id = newId('whd');
    const now = this.clock.now();
    this.store.deliveries.insert({
      id,
      eventId: event.id,
      merchantId: event.merchantId,
      url: target.url,
      endpointId: target.endpointId,
      contentType: target.contentType,
      body: target.body,
      manual: target.manual ?? false,
      nextAttemptAt: now,
      createdAt: now,
    });
    // A microtask runs once the caller's synchronous transaction has run; the worker then waits for
    // the batch to commit before it sends anything (delivery-worker.ts).
    queueMicrotask(this.onEnqueue);
    return id;
  }
}
