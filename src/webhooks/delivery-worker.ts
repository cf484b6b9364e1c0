// The delivery worker: the only code that sends webhooks. It leases due outbox rows (claiming),
// POSTs each with a fresh signature (sending), records the attempt and schedules the next try or
// finishes the row (attempt-record.ts). A lease (not a lock) means a crash leaves nothing stuck:
// start-up voids old leases.
import type { Config } from '../config.js';
import type { ActivityBus } from '../runtime/activity.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import { controlTargetRefusal } from '../runtime/machine-names.js';
import { ThrottledLog } from '../runtime/throttled-log.js';
import type { Delivery } from '../store/deliveries-repo.js';
import type { Store } from '../store/store.js';
import { AttemptRecorder } from './attempt-record.js';
import type { AttemptShaper } from './attempt-shaper.js';
import { postWebhook, type PostResult, type TargetCheck } from './http-sender.js';
import { InFlight, receiverOf, type DeliveriesInFlight } from './in-flight.js';
import { signedRequest, type Resigner, type SigningResolver } from './webhook-request.js';

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
export class DeliveryWorker implements DeliveriesInFlight {
  private readonly inFlight = new InFlight();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private pumping = false;
  private pumpAgain = false;
  /** Set when a claim, a record or a read failed (database busy): the next try waits a little instead of spinning. */
  private claimFailed = false;
  /** Failed tries in a row, for the back-off. */
  private failuresInRow = 0;
  private wakeQueued = false;
  /** The storage-fault lines, once per 30 s each: a full disk used to log ten a second. */
  private readonly storageFaults: ThrottledLog;
  private readonly recorder: AttemptRecorder;
  /** Most attempts in flight at once; 32 keeps a local receiver busy (the bench also measures 8). */
  maxInFlight = MAX_IN_FLIGHT;
  /** Nothing is ever sent to a sandbox's own control API (docs/security.md): such an attempt fails unsent. */
  private readonly checkTarget: TargetCheck = (url) => controlTargetRefusal(url, this.options.config);

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.storageFaults = new ThrottledLog(options.logger);
    this.recorder = new AttemptRecorder(options);
  }

  /** Voids leases left by a previous process and starts sending. */
  start(): void {
    this.options.store.deliveries.releaseAllLeases();
    this.stopped = false;
    this.wake();
  }

  /** Looks for due work on the next turn of the event loop (after an enqueue or a clock advance). */
  wake(): void {
    if (this.stopped || this.wakeQueued) return;
    // One claim per turn, not per enqueue: creates answered in the same turn share one lease
    // transaction (about a quarter less CPU per approved create under load, measured by the bench).
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      this.wakeNow();
    });
  }

  private wakeNow(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pump();
  }

  /** Stops claiming, waits for attempts in flight (they are recorded), and frees what is left. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.inFlight.settled();
    this.options.store.deliveries.releaseAllLeases();
  }

  /** Attempts currently being sent. */
  get busy(): number {
    return this.inFlight.size;
  }

  /** Attempts of one merchant's deliveries currently being sent. */
  busyFor(merchantId: string): number {
    return this.inFlight.of(merchantId);
  }

  private pump(): void {
    // Never send a webhook for a write that is not committed yet: wait for the batch.
    if (this.options.store.batch.pending) {
      this.options.store.batch.afterCommit(() => this.wakeNow());
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        const room = this.maxInFlight - this.inFlight.size;
        if (room <= 0) break;
        const claimed = this.claim(room);
        if (claimed === undefined) break;
        for (const delivery of claimed) {
          this.inFlight.track(
            delivery,
            () => this.send(delivery),
            () => this.wake(),
          );
        }
        if (claimed.length === room) this.pumpAgain = true;
      } while (this.pumpAgain && !this.stopped);
    } finally {
      this.pumping = false;
    }
    this.armTimer();
  }

  /** Leases up to `room` due deliveries, at most 8 in flight per receiver; undefined when the database refused. */
  private claim(room: number): Delivery[] | undefined {
    const now = this.options.clock.now();
    try {
      const claimed = this.options.store.deliveries.claimDue(
        now,
        now + this.options.config.webhookTimeoutMs + LEASE_MARGIN_MS,
        room,
        receiverOf,
        MAX_IN_FLIGHT_PER_RECEIVER,
        this.inFlight.perReceiver,
      );
      this.failuresInRow = 0;
      return claimed;
    } catch (err) {
      // A busy database must not take the server down: the timer retries in a moment.
      this.storageFaults.error('claim', `webhook worker could not claim deliveries: ${(err as Error).message}; retrying`);
      this.claimFailed = true;
      return undefined;
    }
  }

  /** Sleeps until the next due delivery (sandbox time), so retries need no polling. */
  private armTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.stopped) return;
    let next: number | null = null;
    if (!this.claimFailed) {
      try {
        next = this.options.store.deliveries.nextDueAt();
      } catch (err) {
        // This runs from a timer or an immediate, where a throw would end the process: look again soon.
        this.storageFaults.error('read', `webhook worker could not read the next due delivery: ${(err as Error).message}; retrying`);
        this.claimFailed = true;
      }
    }
    if (this.claimFailed) {
      this.claimFailed = false;
      const wait = Math.min(RETRY_FIRST_MS * 2 ** this.failuresInRow, RETRY_MAX_MS);
      this.failuresInRow++;
      this.timer = setTimeout(() => this.wake(), wait);
      this.timer.unref();
      return;
    }
    if (next === null) return;
    // Work that is due but was left unclaimed waits for a per-receiver slot: the finishing attempt wakes us.
    if (next <= this.options.clock.now() && this.inFlight.size > 0) return;
    const wait = Math.max(0, Math.min(next - this.options.clock.now(), 60_000));
    this.timer = setTimeout(() => this.wake(), wait);
    this.timer.unref();
  }

  private async send(delivery: Delivery): Promise<void> {
    try {
      await this.attempt(delivery);
    } catch (err) {
      // The attempt could not be recorded (the database stayed locked past busy_timeout, e.g. a
      // checkpoint on a starved disk). Nothing was written, so the delivery is still pending under
      // its lease and goes out again once the lease ends: at least once, and the server lives on.
      this.storageFaults.error(
        'record',
        `webhook worker could not record attempt ${delivery.attempts + 1} of delivery ${delivery.id}: ${(err as Error).message}; it is sent again when its lease ends`,
      );
      this.claimFailed = true;
    }
  }

  /** One attempt: signed, shaped by the fault rules, sent (with any duplicate copies), then recorded. */
  private async attempt(delivery: Delivery): Promise<void> {
    const { store, clock, config, shaper } = this.options;
    const attempt = delivery.attempts + 1;
    const planned = signedRequest(delivery, attempt, this.options);
    const resign: Resigner = (overrides) => signedRequest(delivery, attempt, this.options, overrides);
    const shaped = shaper.shape(delivery, attempt, planned, resign);
    if (shaped.holdUntil !== undefined) {
      // Held by a fault: no attempt is made or counted; the row simply falls due later.
      store.deliveries.reschedule(delivery.id, shaped.holdUntil);
      return;
    }
    const startedAt = clock.now();
    const result: PostResult =
      shaped.injectedFailure !== undefined
        ? { status: null, headers: null, body: null, latencyMs: 0, errorKind: 'injected', errorMessage: shaped.injectedFailure }
        : await postWebhook(shaped.request, config.webhookTimeoutMs, this.checkTarget, this.options.webhookCa);
    for (let copy = 0; copy < (shaped.duplicates ?? 0); copy++) {
      const extra = await postWebhook(shaped.request, config.webhookTimeoutMs, this.checkTarget, this.options.webhookCa);
      this.recorder.copy(delivery, attempt, shaped.request, extra, copy + 1);
    }
    // Take the write lock the way requests do (waiting with timers): failing to record the
    // attempt would send the webhook again when its lease ends.
    await store.batch.ready();
    this.recorder.finish(delivery, attempt, startedAt, shaped, result);
    shaper.settled(delivery, shaped);
  }
}
