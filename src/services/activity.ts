// The activity bus: services and the delivery worker publish what happened; the SSE stream,
// the dashboard, `sandbox listen` and the log subscribe. In-process only; the database is the record.
import { EventEmitter } from 'node:events';

/** One thing that happened, as the SSE stream sends it. */
export interface Activity {
  kind: 'event.created' | 'delivery.attempted' | 'transaction.updated' | 'payment.updated' | 'session.updated' | 'state.reset';
  at: number;
  data: Record<string, unknown>;
}

/** A typed emitter of Activity. */
export class ActivityBus {
  private readonly emitter = new EventEmitter();

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
}
