// The read side of /v1/events: a merchant sees its own events and no one else's, so another
// merchant's event is as missing as one that never existed.
import type { EventFilter, EventRecord } from '../store/events-repo.js';
import type { ServiceDeps } from './deps.js';

/** A merchant's own events, newest first. */
export class MerchantEvents {
  constructor(private readonly deps: ServiceDeps) {}

  /** The merchant's event; undefined for a missing id and for another merchant's alike. */
  get(merchantId: string, id: string): EventRecord | undefined {
    const event = this.deps.store.events.get(id);
    return event && event.merchantId === merchantId ? event : undefined;
  }

  /** The merchant's events that match `filter`, newest first. */
  list(merchantId: string, filter: Omit<EventFilter, 'merchantId'>): EventRecord[] {
    return this.deps.store.events.list({ ...filter, merchantId });
  }
}
