// What the worker writes once an attempt is answered (or failed): the attempt row, the delivery's
// next state (done, due again after the retry schedule's wait, or failed for good), the log line and
// the activity item the dashboard and waitForDelivery follow.
import type { Config } from '../config.js';
import type { ActivityBus } from '../runtime/activity.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import type { Delivery, DeliveryAttempt } from '../store/deliveries-repo.js';
import type { Store } from '../store/store.js';
import type { ShapedAttempt } from './attempt-shaper.js';
import type { PostResult } from './http-sender.js';
import { nextRetryDelay } from '../domain/retry-profile.js';
import type { OutgoingWebhook } from './webhook-request.js';

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

/** Records attempts and moves their deliveries on. */
export class AttemptRecorder {
  constructor(private readonly deps: AttemptRecorderDeps) {}

  /** Records an extra copy of an attempt (duplicate=N); the delivery itself does not move. */
  copy(delivery: Delivery, attempt: number, request: OutgoingWebhook, result: PostResult, copy: number): void {
    this.deps.store.deliveries.recordAttempt(
      attemptRecord(delivery.id, attempt, this.deps.clock.now(), request, result, `duplicate copy ${copy}`),
    );
  }

  /** Records the attempt and the delivery's next state in one transaction, then logs and announces it. */
  finish(delivery: Delivery, attempt: number, startedAt: number, shaped: ShapedAttempt, result: PostResult): void {
    const { store, clock, config } = this.deps;
    const succeeded = result.errorKind === null && !shaped.treatAsFailure;
    const now = clock.now();
    const retryIn = succeeded || delivery.manual ? undefined : nextRetryDelay(config.retry, attempt);
    const status = succeeded ? 'succeeded' : retryIn === undefined ? 'failed' : 'pending';
    // The wait counts from when this attempt was due, not from when it ran: after a clock advance
    // the overdue retries run back to back until one falls due after the sandbox clock. The time
    // the attempt itself took (a 5 s timeout) is added, so on-time attempts keep their spacing.
    const due = Math.min(delivery.nextAttemptAt ?? startedAt, startedAt);
    const nextAttemptAt = status === 'pending' ? due + retryIn! + Math.max(0, now - startedAt) : null;
    const lastError = succeeded ? null : shaped.treatAsFailure ? `${shaped.fault}: the 2xx was ignored` : result.errorMessage;
    store.tx(() => {
      store.deliveries.recordAttempt(attemptRecord(delivery.id, attempt, startedAt, shaped.request, result, shaped.fault));
      store.deliveries.finish({ id: delivery.id, status, attempts: attempt, nextAttemptAt, lastStatus: result.status, lastError, now });
    });
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
