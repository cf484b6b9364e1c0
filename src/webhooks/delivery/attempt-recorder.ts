// What the worker writes once an attempt is answered (or failed): the attempt row, the delivery's
// next state (done, due again after the retry schedule's wait, or failed for good), the log line and
// the activity item the dashboard and waitForDelivery follow.
import type { Config } from '../../config.js';
import type { ActivityBus } from '../../runtime/activity.js';
import type { Clock } from '../../runtime/clock.js';
import type { Logger } from '../../runtime/logger.js';
import type { Delivery, DeliveryAttempt } from '../../store/deliveries-repo.js';
import type { Store } from '../../store/store.js';
import type { ShapedAttempt } from './attempt-shaper.js';
import type { PostResult } from './http-sender.js';
import { nextRetryDelay } from '../../domain/retry-profile.js';
import type { OutgoingWebhook } from '../webhook-request.js';

/** The attempt row of one POST (or of an injected failure) and what came back. */
function attemptRecord(
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

/** What recording an attempt is built from. */
export interface AttemptRecorderDeps {
  store: Store;
  clock: Clock;
  config: Config;
  activity: ActivityBus;
  logger: Logger;
}

/** One answered (or failed) attempt to record, with the copies a duplicate fault sent after it. */
export interface AttemptOutcome {
  delivery: Delivery;
  attempt: number;
  startedAt: number;
  shaped: ShapedAttempt;
  result: PostResult;
  copies: PostResult[];
}

/** What recording decided for an attempt, for its log line and activity item. */
interface Decided {
  status: 'succeeded' | 'failed' | 'pending';
  retryIn: number | undefined;
  lastError: string | null;
  now: number;
}

/** Records attempts and moves their deliveries on. */
export class AttemptRecorder {
  constructor(private readonly deps: AttemptRecorderDeps) {}

  /**
   * Writes a batch of attempts (each copy's row, the attempt's row, the delivery's next state) and
   * of holds (a fault moved the delivery's due time; no attempt counted) in one unit of the shared
   * write batch, then logs and announces each attempt. Throws, with nothing written, when the unit fails.
   */
  finishAll(outcomes: readonly AttemptOutcome[], holds: ReadonlyArray<{ id: string; until: number }> = []): void {
    const { store } = this.deps;
    // No answer's work: its batch failing fails no request (group-commit.ts within).
    const decided = store.batch.within(null, () =>
      store.tx(() => {
        for (const { id, until } of holds) store.deliveries.reschedule(id, until);
        return outcomes.map((outcome) => this.write(outcome));
      }),
    );
    for (const [i, outcome] of outcomes.entries()) this.announce(outcome, decided[i]);
  }

  private write({ delivery, attempt, startedAt, shaped, result, copies }: AttemptOutcome): Decided {
    const { store, clock, config } = this.deps;
    const now = clock.now();
    for (const [i, copy] of copies.entries())
      store.deliveries.recordAttempt(attemptRecord(delivery.id, attempt, now, shaped.request, copy, `duplicate copy ${i + 1}`));
    const succeeded = result.errorKind === null && !shaped.treatAsFailure;
    const retryIn = succeeded || delivery.manual ? undefined : nextRetryDelay(config.retry, attempt);
    const status = succeeded ? 'succeeded' : retryIn === undefined ? 'failed' : 'pending';
    // The wait counts from when this attempt was due, not from when it ran: after a clock advance
    // the overdue retries run back to back until one falls due after the sandbox clock. The time
    // the attempt itself took (a 5 s timeout) is added, so on-time attempts keep their spacing.
    const due = Math.min(delivery.nextAttemptAt ?? startedAt, startedAt);
    const nextAttemptAt = retryIn === undefined ? null : due + retryIn + Math.max(0, now - startedAt);
    const lastError = succeeded ? null : shaped.treatAsFailure ? `${shaped.fault}: the 2xx was ignored` : result.errorMessage;
    store.deliveries.recordAttempt(attemptRecord(delivery.id, attempt, startedAt, shaped.request, result, shaped.fault));
    store.deliveries.finish({
      id: delivery.id,
      url: delivery.url,
      status,
      attempts: attempt,
      nextAttemptAt,
      lastStatus: result.status,
      lastError,
      now,
    });
    return { status, retryIn, lastError, now };
  }

  private announce({ delivery, attempt, shaped, result }: AttemptOutcome, { status, retryIn, lastError, now }: Decided): void {
    this.deps.logger.webhook({ delivery, attempt, status, result, fault: shaped.fault, retryIn });
    this.deps.activity.publish({
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
