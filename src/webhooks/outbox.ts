// The outbox: the rows of events and of the deliveries that carry them, written inside the caller's
// transaction so a state change and its webhooks commit (or roll back) together. The services write
// here only through the EventPublisher (services/event-publisher.ts).
// A delivery the worker can send at once is written already leased to it and handed to it as the
// batch commits (deliver from the commit): the worker never reads it back nor claims it. Any other
// (the worker stopped, its receiver's queue full, a transaction of its own) is left due for the
// worker's reads, and the worker is woken.
import { newId } from '../domain/ids.js';
import type { Clock } from '../runtime/clock.js';
import { currentRequestId } from '../runtime/request-scope.js';
import { currentTrace } from '../runtime/trace-scope.js';
import { NO_TRACER, type Tracer } from '../runtime/tracing.js';
import { contextTraceparent, type TraceContext } from '../domain/traceparent.js';
import type { Delivery } from '../store/deliveries-repo.js';
import type { Store } from '../store/store.js';
import type { EventRecord } from '../store/events-repo.js';

/** The delivery worker as the outbox sees it. */
export interface DeliveryIntake {
  /** Looks for due work soon. */
  wake(): void;
  /** The lease a new delivery to `url` is written with when the worker takes it from the commit, or null when it does not. */
  leaseOnInsert(url: string, now: number): number | null;
  /** A delivery written with that lease, handed over right after its batch committed. */
  adopt(delivery: Delivery): void;
}

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
    /** The delivery worker: handed each delivery it takes from the commit, woken for the others. */
    private readonly worker: DeliveryIntake,
    /** Records each event as a span of its trace (--otlp); NO_TRACER records none. */
    private readonly tracer: Tracer = NO_TRACER,
  ) {}

  /** Records an event (the merchant-visible fact) and returns it, in the trace of the request or of the object it is about. */
  recordEvent(merchantId: string, type: string, resourceId: string, data: Record<string, unknown>): EventRecord {
    const event: EventRecord = { id: newId('evt'), merchantId, type, resourceId, data, createdAt: this.clock.now() };
    const requestId = currentRequestId();
    const trace = this.traceOf(merchantId, resourceId, requestId);
    if (trace) {
      // The state change is a span of its own (with --otlp); its webhooks are children of the same parent.
      const span = this.tracer.start(`state ${type}`, 'internal', trace, {
        'paysandbox.event.id': event.id,
        'paysandbox.event.type': type,
        'paysandbox.object.id': resourceId,
      });
      span.end();
      event.traceParent = contextTraceparent(trace);
      event.traceState = trace.state;
    }
    this.store.events.insert(event, requestId);
    return event;
  }

  /**
   * The trace an event belongs to: the request's (a traceparent came with it, or it has a span of
   * its own), kept with the object for its later events; else the one kept with the object or the
   * payment it belongs to (a 3-D Secure choice, a job). Undefined when neither has one.
   */
  private traceOf(merchantId: string, objectId: string, requestId: string | null): TraceContext | undefined {
    const { journal, story } = this.store;
    const current = currentTrace(objectId);
    if (current) {
      // With the journal off there is no request id to name (the journal's scope); the trace is kept all the same.
      journal.keepTrace(merchantId, {
        objectId,
        traceId: current.traceId,
        parentId: current.spanId,
        requestId: requestId ?? '',
        flags: current.flags,
        traceState: current.state,
      });
      return current;
    }
    if (!journal.anyTrace()) return undefined;
    let kept = journal.trace(objectId);
    if (!kept) {
      const owner = story.ownerOf(objectId);
      kept = owner === undefined ? undefined : journal.trace(owner);
    }
    if (!kept) return undefined;
    return { traceId: kept.traceId, spanId: kept.parentId, flags: kept.flags ?? '01', state: kept.traceState ?? null };
  }

  /** Queues one delivery of `event` to `target`, due now; returns its id. */
  enqueue(event: EventRecord, target: DeliveryTarget): string {
    const id = newId('whd');
    const { store, worker } = this;
    const now = this.clock.now();
    // Only inside the shared batch: its commit is what hands the delivery over.
    const leaseUntil = store.batch.pending ? worker.leaseOnInsert(target.url, now) : null;
    const delivery: Delivery = {
      id,
      eventId: event.id,
      eventType: event.type,
      merchantId: event.merchantId,
      url: target.url,
      endpointId: target.endpointId,
      contentType: target.contentType,
      body: target.body,
      status: 'pending',
      manual: target.manual ?? false,
      attempts: 0,
      nextAttemptAt: now,
      leaseUntil,
      lastStatus: null,
      lastError: null,
      createdAt: now,
      updatedAt: now,
      traceParent: event.traceParent ?? null,
      traceState: event.traceState ?? null,
    };
    store.deliveries.insert(delivery);
    if (leaseUntil !== null) store.batch.onCommitted(() => worker.adopt(delivery));
    // Woken once the caller's synchronous transaction is done; the worker itself waits for the batch's commit before claiming.
    else queueMicrotask(this.wakeWorker);
    return id;
  }
}
