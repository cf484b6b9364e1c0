// The activity bus: the EventPublisher (every status change and event, once committed), a reset and
// the delivery worker publish what happened; the SSE stream (and through it the dashboard and
// `sandbox listen`), startSandbox()'s waitForDelivery and the log subscribe. In-process only; the
// database is the record.
import { EventEmitter } from 'node:events';

/** One thing that happened, as the SSE stream sends it. */
export interface Activity {
  kind:
    | 'event.created'
    | 'delivery.attempted'
    | 'transaction.updated'
    | 'payment.updated'
    | 'session.updated'
    | 'state.reset'
    | 'fault.injected';
  at: number;
  data: Record<string, unknown>;
}

/**
 * A subscriber's own queue, for one that sends what it gets somewhere slower (an SSE client): it
 * holds at most `limit` items, and the subscriber that lets it overflow is dropped, not buffered
 * without bound (50 dashboards that stopped reading grew the process by 160 MB a minute).
 */
export class BoundedSubscription {
  private readonly items: Activity[] = [];
  private open = true;

  constructor(
    private readonly limit: number,
    /** Called when an item arrives. */
    private readonly onItem: () => void,
    /** Called once, when the queue overflowed and the subscription was ended. */
    private readonly onDrop: (pending: number) => void,
    private readonly detach: (subscription: BoundedSubscription) => void,
  ) {}

  /** Items waiting to be taken. */
  get pending(): number {
    return this.items.length;
  }

  /** The oldest waiting item, or undefined. */
  take(): Activity | undefined {
    return this.items.shift();
  }

  /** Ends the subscription and frees what it held. */
  close(): void {
    if (!this.open) return;
    this.open = false;
    this.items.length = 0;
    this.detach(this);
  }

  /** Queues an item, or drops the subscriber when it is already `limit` items behind. */
  push(activity: Activity): void {
    if (!this.open) return;
    if (this.items.length >= this.limit) {
      const pending = this.items.length;
      this.close();
      this.onDrop(pending);
      return;
    }
    this.items.push(activity);
    this.onItem();
  }
}

/** A typed emitter of Activity. */
export class ActivityBus {
  private readonly emitter = new EventEmitter();
  private readonly bounded = new Set<BoundedSubscription>();
  /** Bounded subscribers dropped for falling behind, since start. */
  dropped = 0;

  constructor() {
    // Every open SSE stream is a listener; there is no leak at a few dozen.
    this.emitter.setMaxListeners(0);
  }

  /** Tells every subscriber. */
  publish(activity: Activity): void {
    this.emitter.emit('activity', activity);
  }

  /** Subscribes; returns the unsubscribe function. */
  subscribe(listener: (activity: Activity) => void): () => void {
    this.emitter.on('activity', listener);
    return () => this.emitter.off('activity', listener);
  }

  /** Subscribes with a queue of at most `limit` items (see BoundedSubscription); close() it when done. */
  subscribeBounded(limit: number, onItem: () => void, onDrop: (pending: number) => void): BoundedSubscription {
    const subscription = new BoundedSubscription(
      limit,
      onItem,
      (pending) => {
        this.dropped++;
        onDrop(pending);
      },
      (ended) => {
        this.bounded.delete(ended);
        this.emitter.off('activity', listener);
      },
    );
    const listener = (activity: Activity) => subscription.push(activity);
    this.bounded.add(subscription);
    this.emitter.on('activity', listener);
    return subscription;
  }

  /** Subscribers listening now, bounded or not. */
  get subscribers(): number {
    return this.emitter.listenerCount('activity');
  }

  /** Items waiting in every bounded subscriber's queue: what slow SSE clients hold in memory. */
  get buffered(): number {
    let total = 0;
    for (const subscription of this.bounded) total += subscription.pending;
    return total;
  }
}
