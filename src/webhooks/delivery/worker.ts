// The delivery worker: the only code that sends webhooks. On the main thread, the one SQLite
// writer: it keeps due deliveries in per-receiver queues (webhooks/delivery/queues.ts) and hands
// attempts to the sender (senders.ts: a thread of its own does the HTTP side); the answers come
// back in batches and are recorded in one unit each (webhooks/delivery/attempt-recorder.ts).
// A new delivery comes straight from the commit that wrote it, already leased (the outbox asks
// leaseOnInsert(), then adopt() hands it over): it is never read back nor claimed. Retries,
// deliveries left after a restart, requeues and imports are read from the outbox in due order and
// leased in a batch (claiming) before they are sent. A lease (not a lock) means a crash leaves
// nothing stuck: start-up voids old leases.
import type { Config } from '../../config.js';
import type { ActivityBus } from '../../runtime/activity.js';
import type { Clock } from '../../runtime/clock.js';
import type { Logger } from '../../runtime/logger.js';
import { ThrottledLog } from '../../runtime/throttled-log.js';
import type { Delivery } from '../../store/deliveries-repo.js';
import { isDatabaseBusy } from '../../store/open-database.js';
import type { DeliveryIntake } from '../outbox.js';
import type { Store } from '../../store/store.js';
import { AttemptRecorder } from './attempt-recorder.js';
import type { AttemptShaper } from './attempt-shaper.js';
import { DeliveryQueues } from './queues.js';
import { InFlight, type DeliveriesInFlight } from './in-flight.js';
import { AttemptBatch, type Attempt } from './attempt-batch.js';
import type { SendJob, SendResult } from './send-loop.js';
import { createSender, defaultSenderPlace, type Sender, type SenderPlace } from './senders.js';
import { signedRequest, type AttemptTrace, type SigningResolver } from '../webhook-request.js';
import { NO_TRACER, type TraceSpan, type Tracer } from '../../runtime/tracing.js';
import { contextTraceparent, storedTrace } from '../../domain/traceparent.js';
import type { PostResult } from './http-sender.js';
import { errorMessage } from '../../errors.js';

/** What the worker is built from. */
export interface DeliveryWorkerOptions {
  store: Store;
  clock: Clock;
  config: Config;
  activity: ActivityBus;
  logger: Logger;
  /** How each delivery is signed (webhookSigning). */
  signing: SigningResolver;
  /** Asked before every attempt: fault injection's webhook rules may change, hold or fail it. */
  shaper: AttemptShaper;
  /** PEM CAs an https receiver may use besides Node's roots (--webhook-ca, the local CA); the same array every time. */
  webhookCa?: readonly string[];
  /** Where the HTTP side runs (senders.ts); by default a thread when the compiled code is there. */
  sender?: SenderPlace;
  /** The sender thread's compiled entry; by default the one next to the running code (the test suite gives a bundle of it). */
  senderEntry?: URL;
  /** Most attempts in flight at once to receivers that answer in time (a first attempt to an idle receiver may go beyond; queues.ts); 32 keeps a local receiver busy (the bench also measures 8). */
  maxInFlight?: number;
  /** Records each attempt as a client span (--otlp); by default none is recorded. */
  tracer?: Tracer;
}

const MAX_IN_FLIGHT = 32;
/** Attempts in flight to one receiver at most: a dead receiver (5 s timeouts) keeps the other 24 slots free. */
const MAX_IN_FLIGHT_PER_RECEIVER = 8;
const LEASE_MARGIN_MS = 10_000;
/** First wait after a failed claim, record or read; it doubles while the fault lasts, up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 100;
/** A locked database or a full disk can last minutes: no point in trying more than once a second. */
const RETRY_MAX_MS = 1000;

/** Sends due deliveries until stopped. */
export class DeliveryWorker implements DeliveriesInFlight, DeliveryIntake {
  private readonly queues: DeliveryQueues;
  private readonly inFlight = new InFlight();
  /** Attempts handed to the sender, by key, until their results come back. */
  private readonly sending = new Map<number, Attempt>();
  /** The span of each attempt of a traced delivery, by key, until it is answered. */
  private readonly spans = new Map<number, TraceSpan>();
  private nextKey = 1;
  private sender: Sender | undefined;
  /** Jobs of this turn, handed to the sender in one message. */
  private jobs: SendJob[] = [];
  /** Answered attempts and holds waiting for their record (one write per turn). */
  private readonly records: AttemptBatch;
  /** Deliveries whose record failed: read again from their due time once their lease has ended. */
  private afterLease: Array<{ at: number; due: number }> = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private wakeQueued = false;
  private adoptQueued = false;
  private loadQueued = false;
  /** Rows may have fallen due in the outbox since it was last read to the end (a write said so, the clock moved, a timer fired). */
  private maybeDue = true;
  /** The next due time may have changed since the timer was armed. */
  private dueChanged = true;
  /** Deliveries taken from their commit and not yet sent: the store's epoch they were adopted in. */
  private readonly adopted = new Map<string, number>();
  /** Set when a claim, a record or a read failed (database busy): the next try waits a little instead of spinning. */
  private claimFailed = false;
  /** Failed tries in a row, for the back-off. */
  private failuresInRow = 0;
  /** The storage-fault lines, once per 30 s each: a full disk used to log ten a second. */
  private readonly storageFaults: ThrottledLog;
  /** Where the HTTP side runs (senders.ts). */
  readonly senderPlace: SenderPlace;
  /** Most attempts in flight at once (DeliveryWorkerOptions.maxInFlight). */
  private readonly maxInFlight: number;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.storageFaults = new ThrottledLog(options.logger);
    this.records = new AttemptBatch({
      store: options.store,
      shaper: options.shaper,
      recorder: new AttemptRecorder(options),
      ended: (entries, failure) => this.ended(entries, failure),
    });
    this.queues = new DeliveryQueues({ dueAfter: (...args) => options.store.deliveries.dueAfter(...args) }, MAX_IN_FLIGHT_PER_RECEIVER);
    this.senderPlace = options.sender ?? defaultSenderPlace(options.senderEntry);
    this.maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
  }

  /** Told by the deliveries repository where a write made a row due (createStore's onDeliveryDue): read from there again. */
  deliveryDue(at: number, rowid: number, url?: string): void {
    this.queues.rewind(at, rowid, url);
    this.maybeDue = true;
    this.dueChanged = true;
  }

  /** Voids leases left by a previous process and starts sending. */
  start(): void {
    this.options.store.deliveries.releaseAllLeases();
    this.queues.reset();
    this.stopped = false;
    this.wake();
  }

  /** Looks for due work on the next turn of the event loop (after an enqueue or a clock advance). */
  wake(): void {
    this.maybeDue = true;
    this.dueChanged = true;
    this.kick();
  }

  /** The lease a new delivery is written with when it can go straight to its receiver's queue at its commit. */
  leaseOnInsert(url: string, now: number): number | null {
    if (this.stopped || !this.queues.canAdopt(url)) return null;
    return now + this.options.config.webhookTimeoutMs + LEASE_MARGIN_MS;
  }

  /** A delivery written leased (leaseOnInsert), handed over right after its batch committed. */
  adopt(delivery: Delivery): void {
    this.adopted.set(delivery.id, this.options.store.batch.epoch);
    this.queues.adopt(delivery);
    // Right after the commit's other hand-overs (a microtask, not a loop turn later): one pass sends them all.
    if (this.stopped || this.wakeQueued || this.adoptQueued) return;
    this.adoptQueued = true;
    queueMicrotask(() => {
      this.adoptQueued = false;
      this.pump();
    });
  }

  /** Runs a pass on the next turn of the event loop: one per turn, however many asked. */
  private kick(): void {
    if (this.stopped || this.wakeQueued) return;
    // One pass per turn, not per enqueue: creates answered in the same turn share one claim.
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      this.pump();
    });
  }

  /** Stops claiming, waits for attempts in flight (they are recorded), ends the sender and frees what is left. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.inFlight.settled();
    const sender = this.sender;
    this.sender = undefined;
    await sender?.close();
    try {
      this.options.store.deliveries.releaseAllLeases();
    } catch (err) {
      // Another process holds the write lock as the sandbox stops: the leases stay, and the next
      // start releases them (nothing is in flight then). Closing must not fail over it.
      if (!isDatabaseBusy(err)) throw err;
    }
  }

  /** Attempts currently being sent. */
  get busy(): number {
    return this.inFlight.size;
  }

  /** Attempts of one merchant's deliveries currently being sent. */
  busyFor(merchantId: string): number {
    return this.inFlight.of(merchantId);
  }

  /** The sender, started on first use (a sandbox that sends nothing starts no thread). */
  get activeSender(): Sender {
    this.sender ??= createSender(
      this.senderPlace,
      {
        timeoutMs: this.options.config.webhookTimeoutMs,
        headerPrefix: this.options.config.headerPrefix,
        ...(this.options.webhookCa?.length ? { extraCa: [...this.options.webhookCa] } : {}),
        where: { host: this.options.config.host, publicUrl: this.options.config.publicUrl },
      },
      (results) => this.answers(results),
      this.options.logger,
      this.options.senderEntry,
    );
    return this.sender;
  }

  private pump(): void {
    if (this.stopped) return;
    const now = this.options.clock.now();
    for (const { due } of this.afterLease.filter(({ at }) => at <= now)) this.queues.rewind(due, 0);
    this.afterLease = this.afterLease.filter(({ at }) => at > now);
    // Not gated on a free slot: a receiver with nothing in flight may always start one (queues.ts).
    if (!this.claimFailed) {
      const more = this.load(now, this.maxInFlight);
      const taken = this.queues.take(this.maxInFlight);
      if (taken.length > 0) this.startAll(taken, now);
      if (more) this.kick();
    }
    if (this.jobs.length > 0) this.activeSender.send(this.jobs.splice(0));
    this.armTimer(now);
  }

  /** Reads due rows into the queues; true when more are due than one pass reads. */
  private load(now: number, room: number): boolean {
    // Never send a webhook for a write that is not committed yet: read the outbox once the batch is.
    if (this.options.store.batch.pending) {
      if (!this.loadQueued) {
        this.loadQueued = true;
        this.options.store.batch.afterCommit(() => {
          this.loadQueued = false;
          this.kick();
        });
      }
      return false;
    }
    try {
      // Reading the outbox again only when something may have fallen due: new deliveries come from their commit.
      const { more, exhausted } = this.queues.fill(now, room, this.maybeDue);
      if (exhausted) this.maybeDue = false;
      return more;
    } catch (err) {
      this.storageFaults.error('load', `webhook worker could not read the due deliveries: ${errorMessage(err)}; retrying`);
      this.claimFailed = true;
      return false;
    }
  }

  /**
   * Starts the taken deliveries: one adopted from its commit, still under that lease and with no
   * table rewritten since (a reset, an import, a merchant's removal), at once; the others once a
   * claim has leased them.
   */
  private startAll(taken: Delivery[], now: number): void {
    const epoch = this.options.store.batch.epoch;
    const toClaim: Delivery[] = [];
    for (const delivery of taken) {
      const adoptedIn = this.adopted.get(delivery.id);
      if (adoptedIn === undefined) toClaim.push(delivery);
      else {
        this.adopted.delete(delivery.id);
        if (adoptedIn === epoch && delivery.leaseUntil !== null && delivery.leaseUntil > now)
          this.begin(delivery, now, delivery.leaseUntil);
        else toClaim.push(delivery);
      }
    }
    if (toClaim.length > 0) this.claim(toClaim, now);
  }

  /** Leases the taken deliveries in one unit of the write batch and starts the ones won. */
  private claim(taken: Delivery[], now: number): void {
    const { store, config } = this.options;
    const leaseUntil = now + config.webhookTimeoutMs + LEASE_MARGIN_MS;
    let won: Set<string>;
    try {
      // No answer's work: its batch failing fails no request (group-commit.ts within).
      won = store.batch.within(null, () => store.tx(() => store.deliveries.claimDue(taken, now, leaseUntil)));
      this.failuresInRow = 0;
    } catch (err) {
      // A busy database must not take the server down: the timer retries in a moment.
      this.storageFaults.error('claim', `webhook worker could not claim deliveries: ${errorMessage(err)}; retrying`);
      this.claimFailed = true;
      for (const delivery of taken.reverse()) this.queues.putBack(delivery);
      return;
    }
    for (const delivery of taken) {
      if (won.has(delivery.id)) this.begin(delivery, now, leaseUntil);
      // Changed since it was read (a reset, a merchant's deletion): nothing to send.
      else this.queues.done(delivery);
    }
  }

  /**
   * One attempt. With no fault rule for it (the common case) it goes to the sender with what signs
   * it, and the sending side builds and signs it; otherwise it is signed here and shaped by the
   * rules, then held, failed on purpose, or queued for the sender as shaped.
   */
  private begin(delivery: Delivery, now: number, leaseUntil: number): void {
    const attempt = delivery.attempts + 1;
    const key = this.nextKey++;
    this.inFlight.add(delivery.merchantId);
    const { shaper } = this.options;
    const trace = this.traceAttempt(key, delivery, attempt);
    if (shaper.quiet(delivery)) {
      // The headers are the sending side's to build; they come back with the answer (answers()).
      const request = { url: delivery.url, headers: {}, body: delivery.body };
      this.sending.set(key, { key, delivery, attempt, startedAt: now, leaseUntil, shaped: { request, fault: null } });
      const { mode, secrets } = this.options.signing(delivery);
      const { id: deliveryId, eventId, eventType, contentType } = delivery;
      const sign = { deliveryId, eventId, eventType, contentType, attempt, timestamp: Math.floor(now / 1000), mode, secrets, trace };
      this.jobs.push({ key, url: delivery.url, body: delivery.body, headers: null, sign, copies: 0 });
      return;
    }
    const planned = signedRequest(delivery, attempt, this.options, {}, trace);
    const shaped = shaper.shape(delivery, attempt, planned, (overrides) =>
      signedRequest(delivery, attempt, this.options, overrides, trace),
    );
    const entry: Attempt = { key, delivery, attempt, startedAt: now, leaseUntil, shaped };
    if (shaped.holdUntil !== undefined) {
      // Held by a fault: no attempt is made or counted; the row simply falls due later (its span is never ended, so never sent).
      this.spans.delete(key);
      this.records.hold(entry);
    } else if (shaped.injectedFailure !== undefined) {
      const result = { status: null, headers: null, body: null, latencyMs: 0, errorKind: 'injected', errorMessage: shaped.injectedFailure };
      this.endSpan(key, result);
      this.records.answer(entry, result, []);
    } else {
      this.sending.set(entry.key, entry);
      const { url, headers, body } = shaped.request;
      this.jobs.push({ key, url, body, headers, sign: null, copies: shaped.duplicates ?? 0 });
    }
  }

  /**
   * The trace headers of an attempt of a delivery whose event has a trace: a child traceparent whose
   * span id is the attempt's own (each attempt, retries and replays included, is a span of its own,
   * as OpenTelemetry's HTTP client spans are), kept by key until answered; null without a trace.
   */
  private traceAttempt(key: number, delivery: Delivery, attempt: number): AttemptTrace | null {
    const parent = storedTrace(delivery.traceParent, delivery.traceState);
    if (!parent) return null;
    const span = (this.options.tracer ?? NO_TRACER).start(`webhook ${delivery.eventType}`, 'client', parent, {
      'http.request.method': 'POST',
      'url.full': delivery.url,
      'paysandbox.delivery.id': delivery.id,
      'paysandbox.event.id': delivery.eventId,
      'paysandbox.event.type': delivery.eventType,
      'paysandbox.attempt': attempt,
    });
    if (this.options.tracer?.exporting) this.spans.set(key, span);
    return { traceparent: contextTraceparent(span.context), tracestate: parent.state };
  }

  /** Ends an attempt's span with the receiver's answer (a status, or why none came). */
  private endSpan(key: number, result: PostResult): void {
    const span = this.spans.get(key);
    if (!span) return;
    this.spans.delete(key);
    if (result.status !== null) span.set({ 'http.response.status_code': result.status });
    if (result.errorKind !== null) span.set({ 'error.type': result.errorKind });
    span.end(result.errorKind === null ? undefined : (result.errorMessage ?? result.errorKind));
  }

  /** A batch of results from the sender. */
  private answers(results: SendResult[]): void {
    for (const { key, result, copies, headers } of results) {
      const entry = this.sending.get(key);
      if (!entry) continue;
      this.sending.delete(key);
      if (headers) entry.shaped.request.headers = headers;
      this.endSpan(key, result);
      this.queues.answered(entry.delivery.url, result.errorKind, result.latencyMs);
      this.records.answer(entry, result, copies);
    }
  }

  /** A batch of attempts ended: free their slots; a failed record is logged and sent again after the lease. */
  private ended(entries: Attempt[], failure: unknown): void {
    if (failure !== undefined) this.recordFailed(entries, failure);
    for (const { delivery } of entries) {
      this.queues.done(delivery);
      this.inFlight.remove(delivery.merchantId);
    }
    this.kick();
  }

  /**
   * The record could not be written (the database stayed locked, e.g. a checkpoint on a starved
   * disk). Nothing was written, so each delivery is still pending under its lease and goes out
   * again once the lease ends: at least once, and the server lives on.
   */
  private recordFailed(entries: Attempt[], err: unknown): void {
    for (const { delivery, attempt, leaseUntil } of entries) {
      this.storageFaults.error(
        'record',
        `webhook worker could not record attempt ${attempt} of delivery ${delivery.id}: ${errorMessage(err)}; it is sent again when its lease ends`,
      );
      this.afterLease.push({ at: leaseUntil, due: delivery.nextAttemptAt ?? 0 });
    }
    this.claimFailed = true;
    this.dueChanged = true;
  }

  /**
   * Sleeps until the next due delivery (sandbox time), so retries need no polling. The outbox is
   * asked only when that time may have changed (a write made a row due, the clock moved, the timer
   * fired); otherwise the timer armed before still stands.
   */
  private armTimer(now: number): void {
    if (this.stopped) {
      if (this.timer) clearTimeout(this.timer);
      return;
    }
    let next: number | null = null;
    if (!this.claimFailed) {
      if (!this.dueChanged) return;
      this.dueChanged = false;
      try {
        next = this.options.store.deliveries.nextDueAt(now);
      } catch (err) {
        // This runs from a timer or an immediate, where a throw would end the process: look again soon.
        this.storageFaults.error('read', `webhook worker could not read the next due delivery: ${errorMessage(err)}; retrying`);
        this.claimFailed = true;
      }
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.claimFailed) {
      this.claimFailed = false;
      const wait = Math.min(RETRY_FIRST_MS * 2 ** this.failuresInRow, RETRY_MAX_MS);
      this.failuresInRow++;
      this.timer = setTimeout(() => this.wake(), wait);
      this.timer.unref();
      return;
    }
    for (const { at } of this.afterLease) next = next === null ? at : Math.min(next, at);
    if (next === null) return;
    // Work that is due but waits for a receiver's slot: the finishing attempt wakes us.
    if (next <= now && (this.inFlight.size > 0 || this.queues.queued > 0)) {
      this.dueChanged = true;
      return;
    }
    const wait = Math.max(0, Math.min(next - now, 60_000));
    this.timer = setTimeout(() => this.wake(), wait);
    this.timer.unref();
  }
}
