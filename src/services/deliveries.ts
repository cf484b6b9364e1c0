// The webhook workbench's use cases: list and inspect deliveries and events, replay an event as a
// new manual delivery, and requeue failed deliveries. The control API and the CLI reach the outbox
// only through here; sending stays the delivery worker's job.
import { parseSince } from '../domain/since.js';
import { SandboxError, present } from '../errors.js';
import { refuseControlTarget } from './control-target.js';
import type { Delivery, DeliveryAttempt, DeliveryFilter } from '../store/deliveries-repo.js';
import type { DeliveryStatus } from '../domain/vocabularies.js';
import type { EventRecord } from '../store/events-repo.js';
import { buildWebhookRequest } from '../webhooks/webhook-request.js';
import type { WebhookSigning } from '../signatures/signing.js';
import type { DeliveryTarget } from '../webhooks/outbox.js';
import { eventEnvelope } from '../views/webhook-body.js';
import type { ServiceDeps } from './deps.js';
import type { EventPublisher } from './event-publisher.js';
import { cursorRow, readPage } from './pagination.js';
import type { Page } from '../views/list.js';

/** retry-failed requeues at most this many deliveries per call. */
const RETRY_FAILED_MAX = 10_000;

/** Filters of the delivery list, as the control API takes them. */
export interface DeliveryQuery {
  status?: DeliveryStatus;
  event?: string;
  event_id?: string;
  url?: string;
  merchant?: string;
  since?: string;
  limit?: number;
  starting_after?: string;
}

/** Filters of the event list. */
export interface EventQuery {
  type?: string;
  resource?: string;
  merchant?: string;
  since?: string;
  limit?: number;
  starting_after?: string;
}

/** The request a delivery sends: the next attempt's (not sent yet, signed as of now) or the last one's. */
export interface DeliveryRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  sent: boolean;
  note: string;
}

/** A delivery with its request and every attempt, oldest first. */
export interface DeliveryDetail {
  delivery: Delivery;
  request: DeliveryRequest;
  attempts: DeliveryAttempt[];
}

/** An event with the body as delivered (or as it would be, when never delivered) and its deliveries, newest first. */
export interface EventDetail {
  event: EventRecord;
  payload: { contentType: string; body: string };
  deliveries: Delivery[];
}

/** Deliveries and events for the control API, as records (the routes serialize them). */
export class Deliveries {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly signing: (delivery: Delivery) => WebhookSigning,
    private readonly events: EventPublisher,
  ) {}

  /** One page of deliveries, newest first. */
  list(q: DeliveryQuery): Page<Delivery> {
    const { store, clock } = this.deps;
    const limit = q.limit ?? 50;
    const startingAfter = cursorRow(
      q.starting_after,
      (id) => store.deliveries.get(id),
      `starting_after names no delivery ("${q.starting_after}"); pass the id of the last delivery of the previous page`,
    );
    const since = q.since === undefined ? undefined : parseSince(q.since, clock.now());
    return readPage(limit, (n) =>
      store.deliveries.list({
        merchantId: q.merchant,
        status: q.status,
        eventType: q.event,
        eventId: q.event_id,
        url: q.url,
        since,
        startingAfter,
        limit: n,
      }),
    );
  }

  /** A delivery with its request and every attempt. */
  get(id: string): DeliveryDetail {
    const d = this.find(id);
    const attempts = this.deps.store.deliveries.attempts(id);
    const last = attempts[attempts.length - 1];
    // Not tried yet (or due again): show what the next attempt would send, signed as of now.
    const preview =
      d.status === 'pending' || !last
        ? buildWebhookRequest(d, d.attempts + 1, this.deps.config, this.signing(d), Math.floor(this.deps.clock.now() / 1000))
        : undefined;
    const request: DeliveryRequest = preview
      ? {
          url: preview.url,
          headers: preview.headers,
          body: preview.body,
          sent: false,
          note: 'the next attempt, signed as of now; it is signed again when sent',
        }
      : { url: d.url, headers: last.requestHeaders, body: last.requestBody, sent: true, note: `as sent by attempt ${last.attempt}` };
    return { delivery: d, request, attempts };
  }

  /** One delivery; a 404 naming the id when there is none. */
  byId(id: string): Delivery {
    return this.find(id);
  }

  /** Stored deliveries as they are, newest first: for the library's handle, which builds its own view. */
  records(filter: DeliveryFilter): Delivery[] {
    return this.deps.store.deliveries.list(filter);
  }

  /** A delivery's attempts, oldest first. */
  attemptsOf(id: string): DeliveryAttempt[] {
    return this.deps.store.deliveries.attempts(id);
  }

  /** Sends the delivery's event again as a new manual delivery (same event id, fresh signature, never retried). */
  replay(id: string, to?: string): Delivery {
    refuseControlTarget(to, 'to', this.deps.config);
    const d = this.find(id);
    const event = present(this.deps.store.events.get(d.eventId), `event ${d.eventId}`);
    // Same body and same signing secret as the original, so the merchant's verifier accepts it.
    return this.enqueueManual(event, {
      url: to ?? d.url,
      endpointId: d.endpointId,
      contentType: d.contentType as DeliveryTarget['contentType'],
      body: d.body,
    });
  }

  /** Sends an event again, like its latest delivery (or as its JSON envelope to `to` when it had none). */
  replayEvent(eventId: string, to?: string): Delivery {
    refuseControlTarget(to, 'to', this.deps.config);
    const event = this.findEvent(eventId);
    const [latest] = this.deps.store.deliveries.list({ eventId, limit: 1 });
    if (latest) return this.replay(latest.id, to);
    if (!to)
      throw new SandboxError('invalid_state', `event ${eventId} was never delivered anywhere; pass "to" with the URL to send it to`, 'to');
    return this.enqueueManual(event, { url: to, endpointId: null, contentType: 'application/json', body: eventEnvelope(event) });
  }

  /** Puts failed deliveries (created since `since`, or all) back in the queue, due now. */
  retryFailed(since?: string) {
    const { store, clock } = this.deps;
    const now = clock.now();
    const failed = store.deliveries.list({
      status: 'failed',
      since: since === undefined ? undefined : parseSince(since, now),
      limit: RETRY_FAILED_MAX,
    });
    store.tx(() => {
      for (const d of failed) store.deliveries.requeue(d.id, now);
    });
    return { count: failed.length, ids: failed.map((d) => d.id) };
  }

  /** One page of events, newest first. */
  listEvents(q: EventQuery): Page<EventRecord> {
    const { store, clock } = this.deps;
    const limit = q.limit ?? 50;
    const startingAfter = cursorRow(
      q.starting_after,
      (id) => store.events.get(id),
      `starting_after names no event ("${q.starting_after}"); pass the id of the last event of the previous page`,
    );
    const since = q.since === undefined ? undefined : parseSince(q.since, clock.now());
    return readPage(limit, (n) =>
      store.events.list({ merchantId: q.merchant, type: q.type, resourceId: q.resource, since, startingAfter, limit: n }),
    );
  }

  /** An event with its deliveries and the payload they carry. */
  getEvent(id: string): EventDetail {
    const event = this.findEvent(id);
    const deliveries = this.deps.store.deliveries.list({ eventId: id, limit: 100 });
    const first = deliveries[deliveries.length - 1];
    const payload = first
      ? { contentType: first.contentType, body: first.body }
      : { contentType: 'application/json', body: eventEnvelope(event) };
    return { event, payload, deliveries };
  }

  private enqueueManual(event: EventRecord, target: Omit<DeliveryTarget, 'manual'>): Delivery {
    const id = this.deps.store.tx(() => this.events.resend(event, target));
    return present(this.deps.store.deliveries.get(id), `delivery ${id}`);
  }

  private find(id: string): Delivery {
    const d = this.deps.store.deliveries.get(id);
    if (!d) throw new SandboxError('resource_missing', `no delivery ${id}; GET /_sandbox/deliveries lists them`, 'id');
    return d;
  }

  private findEvent(id: string): EventRecord {
    const e = this.deps.store.events.get(id);
    if (!e) throw new SandboxError('resource_missing', `no event ${id}; GET /_sandbox/events lists them`, 'id');
    return e;
  }
}
