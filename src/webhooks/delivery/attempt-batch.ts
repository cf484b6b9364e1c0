// The answered attempts (and fault holds) of a turn, recorded together: one wait for the write
// lock, one unit of the shared write batch for all of them (webhooks/delivery/attempt-recorder.ts), then each attempt's
// slot is freed. Nothing of a failed unit is written: its deliveries stay pending under their leases.
import type { Delivery } from '../../store/deliveries-repo.js';
import type { Store } from '../../store/store.js';
import type { AttemptOutcome, AttemptRecorder } from './attempt-recorder.js';
import type { AttemptShaper, ShapedAttempt } from './attempt-shaper.js';
import type { PostResult } from './http-sender.js';

/** One attempt from its claim to its record. */
export interface Attempt {
  key: number;
  delivery: Delivery;
  attempt: number;
  startedAt: number;
  leaseUntil: number;
  shaped: ShapedAttempt;
}

/** What a batch is built from. */
export interface AttemptBatchDeps {
  store: Store;
  shaper: AttemptShaper;
  recorder: AttemptRecorder;
  /** Told once the batch's attempts ended: recorded, or (with the error) not. */
  ended(entries: Attempt[], failure: unknown): void;
}

/** Collects attempts to record and records them once per turn. */
export class AttemptBatch {
  private answered: Array<AttemptOutcome & Attempt> = [];
  private holds: Attempt[] = [];
  private queued = false;

  constructor(private readonly deps: AttemptBatchDeps) {}

  /** An attempt's answer (or injected failure), to record. */
  answer(entry: Attempt, result: PostResult, copies: PostResult[]): void {
    // A literal, not `{ ...entry, result, copies }` (CONTRIBUTING.md: copies that add fields on the request path).
    this.answered.push({
      key: entry.key,
      delivery: entry.delivery,
      attempt: entry.attempt,
      startedAt: entry.startedAt,
      leaseUntil: entry.leaseUntil,
      shaped: entry.shaped,
      result,
      copies,
    });
    this.queue();
  }

  /** A fault held the attempt back: its delivery's due time moves to `shaped.holdUntil`, no attempt counted. */
  hold(entry: Attempt): void {
    this.holds.push(entry);
    this.queue();
  }

  private queue(): void {
    if (this.queued) return;
    this.queued = true;
    void this.record();
  }

  private async record(): Promise<void> {
    const { store, shaper, recorder } = this.deps;
    let failure: unknown;
    try {
      // Take the write lock the way requests do (waiting with timers): failing to record the
      // attempts would send the webhooks again when their leases end.
      await store.batch.ready();
    } catch (err) {
      failure = err;
    }
    this.queued = false;
    const answered = this.answered.splice(0);
    const holds = this.holds.splice(0);
    if (failure === undefined) {
      try {
        recorder.finishAll(
          answered,
          holds.map(({ delivery, shaped, startedAt }) => ({ id: delivery.id, until: shaped.holdUntil ?? startedAt })),
        );
        for (const { delivery, shaped } of answered) shaper.settled(delivery, shaped);
      } catch (err) {
        failure = err;
      }
    }
    this.deps.ended([...answered, ...holds], failure);
  }
}
