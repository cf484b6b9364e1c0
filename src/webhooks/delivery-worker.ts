// The delivery worker: the only code that sends webhooks. It leases due outbox rows, POSTs each
// with a fresh signature, records the attempt, and schedules the next try or finishes the row.
// A lease (not a lock) means a crash leaves nothing stuck: start-up voids old leases.
import type { Clock } from '../runtime/clock.js';
import type { ActivityBus } from '../runtime/activity.js';
import type { Store } from '../store/store.js';
import type { Delivery, DeliveryAttempt } from '../store/deliveries-repo.js';
import type { Config } from '../config.js';
import type { Logger } from '../runtime/logger.js';
import { nextRetryDelay } from './retry-schedule.js';
import { signatureHeaders, type WebhookSigning } from '../crypto/signature.js';
import { postWebhook, type PostResult, type TargetCheck } from './http-sender.js';
import { controlTargetRefusal } from '../runtime/machine-names.js';
import { VERSION } from '../version.js';
import { ThrottledLog } from '../runtime/throttled-log.js';

/** Finds how a delivery is signed: its mode and secrets (two while an endpoint's secret is rotating). */
export type SigningResolver = (delivery: Delivery) => WebhookSigning;

/** Shapes one attempt on purpose (fault injection); the default sends it as it is. */
export interface AttemptShaper {
  /** Called before sending; may change headers/body, skip sending, or hold the attempt. */
  shape(delivery: Delivery, attempt: number, request: OutgoingWebhook, resign: Resigner): ShapedAttempt;
  /** Called once the attempt is recorded (reorder releases the delivery it held back). */
  settled?(delivery: Delivery, shaped: ShapedAttempt): void;
}

/** Builds the request again as the worker would, with another timestamp or secrets (stale-timestamp, bad-signature). */
export type Resigner = (overrides: { timestamp?: number; secrets?: readonly string[] }) => OutgoingWebhook;

/** The request the worker is about to send. */
export interface OutgoingWebhook {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What the shaper decided. `treatAsFailure` records a 2xx as failed (lost-ack). */
export interface ShapedAttempt {
  request: OutgoingWebhook;
  fault: string | null;
  treatAsFailure?: boolean;
  /** Extra copies to send right after (duplicate=N); each is recorded as its own attempt. */
  duplicates?: number;
  /** Send nothing now and count no attempt: the delivery is due again at this sandbox time (delay, reorder). */
  holdUntil?: number;
  /** Send nothing: record a failed attempt with error kind `injected` and this message (fail-first, fail). */
  injectedFailure?: string;
}

/** The signed request of attempt number `attempt` (the worker's, and what `webhooks show` previews). */
export function buildWebhookRequest(
  delivery: Delivery,
  attempt: number,
  config: Pick<Config, 'headerPrefix'>,
  signing: WebhookSigning,
  timestamp: number,
): OutgoingWebhook {
  const prefix = `x-${config.headerPrefix.toLowerCase()}`;
  return {
    url: delivery.url,
    body: delivery.body,
    headers: {
      'content-type': delivery.contentType,
      'user-agent': `paysandbox/${VERSION}`,
      // The event id is the message id: the same on every retry and replay, so receivers dedupe on it.
      ...signatureHeaders({ ...signing, prefix: config.headerPrefix, id: delivery.eventId, timestamp, body: delivery.body }),
      [`${prefix}-event-id`]: delivery.eventId,
      [`${prefix}-event-type`]: delivery.eventType,
      [`${prefix}-delivery-id`]: delivery.id,
      [`${prefix}-attempt`]: String(attempt),
      [`${prefix}-timestamp`]: String(timestamp),
    },
  };
}

const MAX_IN_FLIGHT = 32;
/** Attempts in flight to one receiver at most: a dead receiver (5 s timeouts) keeps the other 24 slots free. */
const MAX_IN_FLIGHT_PER_RECEIVER = 8;
const LEASE_MARGIN_MS = 10_000;
/** First wait after a failed claim, record or read; it doubles while the fault lasts, up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 100;
/** A locked database or a full disk can last minutes: no point in trying more than once a second. */
const RETRY_MAX_MS = 1000;

/**
 * The receiver a webhook URL goes to, for the in-flight cap: its origin (scheme, host, port), so a
 * dead receiver with per-order paths (/hook/1, /hook/2...) holds one share of the slots, not all.
 * A URL with no origin (unparseable, or not http) is its own receiver: its attempt fails normally.
 */
export function receiverOf(url: string): string {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? url : origin;
  } catch {
    return url;
  }
}

/** Adds `by` to the count of `key`, dropping counts that reach 0. */
function count(counts: Map<string, number>, key: string, by: 1 | -1): void {
  const left = (counts.get(key) ?? 0) + by;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

/** Sends due deliveries until stopped. */
export class DeliveryWorker {
  private inFlight = new Set<Promise<void>>();
  /** Attempts in flight by receiver (receiverOf). */
  private inFlightPerReceiver = new Map<string, number>();
  /** Attempts in flight by merchant: a merchant's reset waits for its own only. */
  private inFlightPerMerchant = new Map<string, number>();
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
  private readonly faults: ThrottledLog;
  shaper: AttemptShaper | undefined;
  /** Most attempts in flight at once; 32 keeps a local receiver busy (the bench also measures 8). */
  maxInFlight = MAX_IN_FLIGHT;
  /** Nothing is ever sent to a sandbox's own control API (docs/security.md): such an attempt fails unsent. */
  private readonly checkTarget: TargetCheck = (url) => controlTargetRefusal(url, this.config);

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly activity: ActivityBus,
    private readonly logger: Logger,
    private readonly resolveSigning: SigningResolver,
  ) {
    this.faults = new ThrottledLog(logger);
  }

  /** Voids leases left by a previous process and starts sending. */
  start(): void {
    this.store.deliveries.releaseAllLeases();
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
    await Promise.allSettled([...this.inFlight]);
    this.store.deliveries.releaseAllLeases();
  }

  /** Attempts currently being sent. */
  get busy(): number {
    return this.inFlight.size;
  }

  /** Attempts of one merchant's deliveries currently being sent. */
  busyFor(merchantId: string): number {
    return this.inFlightPerMerchant.get(merchantId) ?? 0;
  }

  private pump(): void {
    // Never send a webhook for a write that is not committed yet: wait for the batch.
    if (this.store.batch.pending) {
      this.store.batch.afterCommit(() => this.wakeNow());
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        const room = this.maxInFlight - this.inFlight.size;
        if (room <= 0) break;
        const now = this.clock.now();
        let claimed: Delivery[];
        try {
          claimed = this.store.deliveries.claimDue(
            now,
            now + this.config.webhookTimeoutMs + LEASE_MARGIN_MS,
            room,
            receiverOf,
            MAX_IN_FLIGHT_PER_RECEIVER,
            this.inFlightPerReceiver,
          );
        } catch (err) {
          // A busy database must not take the server down: the timer retries in a moment.
          this.faults.error('claim', `webhook worker could not claim deliveries: ${(err as Error).message}; retrying`);
          this.claimFailed = true;
          break;
        }
        this.failuresInRow = 0;
        for (const delivery of claimed) {
          const receiver = receiverOf(delivery.url);
          count(this.inFlightPerReceiver, receiver, 1);
          count(this.inFlightPerMerchant, delivery.merchantId, 1);
          const running = this.send(delivery).finally(() => {
            this.inFlight.delete(running);
            count(this.inFlightPerReceiver, receiver, -1);
            count(this.inFlightPerMerchant, delivery.merchantId, -1);
            this.wake();
          });
          this.inFlight.add(running);
        }
        if (claimed.length === room) this.pumpAgain = true;
      } while (this.pumpAgain && !this.stopped);
    } finally {
      this.pumping = false;
    }
    this.armTimer();
  }

  /** Sleeps until the next due delivery (sandbox time), so retries need no polling. */
  private armTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.stopped) return;
    let next: number | null = null;
    if (!this.claimFailed) {
      try {
        next = this.store.deliveries.nextDueAt();
      } catch (err) {
        // This runs from a timer or an immediate, where a throw would end the process: look again soon.
        this.faults.error('read', `webhook worker could not read the next due delivery: ${(err as Error).message}; retrying`);
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
    if (next <= this.clock.now() && this.inFlight.size > 0) return;
    const wait = Math.max(0, Math.min(next - this.clock.now(), 60_000));
    this.timer = setTimeout(() => this.wake(), wait);
    this.timer.unref();
  }

  private buildRequest(
    delivery: Delivery,
    attempt: number,
    overrides: { timestamp?: number; secrets?: readonly string[] } = {},
  ): OutgoingWebhook {
    const signing = this.resolveSigning(delivery);
    return buildWebhookRequest(
      delivery,
      attempt,
      this.config,
      { mode: signing.mode, secrets: overrides.secrets ?? signing.secrets },
      overrides.timestamp ?? Math.floor(this.clock.now() / 1000),
    );
  }

  private async send(delivery: Delivery): Promise<void> {
    try {
      await this.attempt(delivery);
    } catch (err) {
      // The attempt could not be recorded (the database stayed locked past busy_timeout, e.g. a
      // checkpoint on a starved disk). Nothing was written, so the delivery is still pending under
      // its lease and goes out again once the lease ends: at least once, and the server lives on.
      this.faults.error(
        'record',
        `webhook worker could not record attempt ${delivery.attempts + 1} of delivery ${delivery.id}: ${(err as Error).message}; it is sent again when its lease ends`,
      );
      this.claimFailed = true;
    }
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const attempt = delivery.attempts + 1;
    const planned = this.buildRequest(delivery, attempt);
    const resign: Resigner = (overrides) => this.buildRequest(delivery, attempt, overrides);
    const shaped: ShapedAttempt = this.shaper ? this.shaper.shape(delivery, attempt, planned, resign) : { request: planned, fault: null };
    if (shaped.holdUntil !== undefined) {
      // Held by a fault: no attempt is made or counted; the row simply falls due later.
      this.store.deliveries.reschedule(delivery.id, shaped.holdUntil);
      return;
    }
    const startedAt = this.clock.now();
    const result: PostResult =
      shaped.injectedFailure !== undefined
        ? { status: null, headers: null, body: null, latencyMs: 0, errorKind: 'injected', errorMessage: shaped.injectedFailure }
        : await postWebhook(shaped.request, this.config.webhookTimeoutMs, this.checkTarget);
    for (let copy = 0; copy < (shaped.duplicates ?? 0); copy++) {
      const extra = await postWebhook(shaped.request, this.config.webhookTimeoutMs, this.checkTarget);
      this.store.deliveries.recordAttempt(
        this.attemptRecord(delivery.id, attempt, this.clock.now(), shaped.request, extra, `duplicate copy ${copy + 1}`),
      );
    }
    // Take the write lock the way requests do (waiting with timers): failing to record the
    // attempt would send the webhook again when its lease ends.
    await this.store.batch.ready();
    this.finish(delivery, attempt, startedAt, shaped, result);
    this.shaper?.settled?.(delivery, shaped);
  }

  private attemptRecord(
    deliveryId: string,
    attempt: number,
    startedAt: number,
    request: OutgoingWebhook,
    result: PostResult,
    fault: string | null,
  ): DeliveryAttempt {
    return {
      deliveryId,
      attempt,
      startedAt,
      requestHeaders: request.headers,
      requestBody: request.body,
      responseStatus: result.status,
      responseHeaders: result.headers,
      responseBody: result.body,
      latencyMs: result.latencyMs,
      errorKind: result.errorKind,
      errorMessage: result.errorMessage,
      fault,
    };
  }

  private finish(delivery: Delivery, attempt: number, startedAt: number, shaped: ShapedAttempt, result: PostResult): void {
    const succeeded = result.errorKind === null && !shaped.treatAsFailure;
    const now = this.clock.now();
    const retryIn = succeeded || delivery.manual ? undefined : nextRetryDelay(this.config.retry, attempt);
    const status = succeeded ? 'succeeded' : retryIn === undefined ? 'failed' : 'pending';
    // The wait counts from when this attempt was due, not from when it ran: after a clock advance
    // the overdue retries run back to back until one falls due after the sandbox clock. The time
    // the attempt itself took (a 5 s timeout) is added, so on-time attempts keep their spacing.
    const due = Math.min(delivery.nextAttemptAt ?? startedAt, startedAt);
    const nextAttemptAt = status === 'pending' ? due + retryIn! + Math.max(0, now - startedAt) : null;
    const lastError = succeeded ? null : shaped.treatAsFailure ? `${shaped.fault}: the 2xx was ignored` : result.errorMessage;
    this.store.tx(() => {
      this.store.deliveries.recordAttempt(this.attemptRecord(delivery.id, attempt, startedAt, shaped.request, result, shaped.fault));
      this.store.deliveries.finish({
        id: delivery.id,
        status,
        attempts: attempt,
        nextAttemptAt,
        lastStatus: result.status,
        lastError,
        now,
      });
    });
    this.logger.webhook({ delivery, attempt, status, result, fault: shaped.fault, retryIn });
    this.activity.publish({
      kind: 'delivery.attempted',
      at: now,
      data: {
        id: delivery.id,
        event_id: delivery.eventId,
        event: delivery.eventType,
        url: delivery.url,
        attempt,
        status,
        response_status: result.status,
        latency_ms: result.latencyMs,
        error: lastError,
        fault: shaped.fault,
      },
    });
  }
}
