// The outbox: the rows of events and of the deliveries that carry them, written inside the caller's
// transaction so a state change and its webhooks commit (or roll back) together. The services write
// here only through the EventPublisher (services/event-publisher.ts). The worker is woken after.
import { newId } from '../domain/ids.js';
import type { Clock } from '../runtime/clock.js';
import { currentRequestId } from '../runtime/request-scope.js';
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

/** Writes events and deliveries; called inside a db transaction by the EventPublisher. */
export class Outbox {
  private readonly wakeWorker = () => this.worker.wake();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** The delivery worker, woken after every delivery queued. */
    private readonly worker: { wake(): void },
  ) {}

  /** Records an event (the merchant-visible fact) and returns it. */
  recordEvent(merchantId: string, type: string, resourceId: string, data: Record<string, unknown>): EventRecord {
    const event: EventRecord = { id: newId('evt'), merchantId, type, resourceId, data, createdAt: this.clock.now() };
    this.store.events.insert(event, currentRequestId());
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
    // Woken once the caller's synchronous transaction is done; the worker itself waits for the batch's commit before claiming.
    queueMicrotask(this.wakeWorker);
    return id;
  }
}
