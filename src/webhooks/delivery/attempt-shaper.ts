// What the delivery worker asks before each attempt: whether to send it as built, change it, hold it
// or fail it on purpose. Fault injection (faults/webhook-faults.ts) is the one shaper.
import type { Delivery } from '../../store/deliveries-repo.js';
import type { OutgoingWebhook, Resigner } from '../webhook-request.js';

/** Shapes one attempt on purpose (fault injection). */
export interface AttemptShaper {
  /** True when no rule applies to the delivery: its attempt goes as built (and may be built off the main thread). */
  quiet(delivery: Delivery): boolean;
  /** Called before sending; may change headers/body, skip sending, or hold the attempt. */
  shape(delivery: Delivery, attempt: number, request: OutgoingWebhook, resign: Resigner): ShapedAttempt;
  /** Called once the attempt is recorded (reorder releases the delivery it held back). */
  settled(delivery: Delivery, shaped: ShapedAttempt): void;
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
