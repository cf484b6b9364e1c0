// `clock advance` with its report: moves sandbox time, runs every job that fell due in turns (each
// turn's jobs commit before the next turn, so a kill -9 in the middle of a long jump loses nothing:
// the clock's new offset is saved in the first turn, and the jobs not yet run are still due at the
// next start), and records what the jump caused (ClockTrace), then waits up to `waitMs` for each
// delivery's first attempt, including those of charges a webhook handler made in answer.
import type { DeliveryAttempt } from '../store/deliveries-repo.js';
import type { ClockTrace, TraceStep } from './clock-trace.js';
import type { Deliveries } from './deliveries.js';
import type { ServiceDeps } from './deps.js';
import type { JobRunner } from './job-runner.js';

/** Jobs one turn runs before its transaction commits and requests get a turn. */
const JOBS_PER_TURN = 200;

/** How often the wait looks for first attempts. */
const POLL_MS = 20;

/** What a jump did, and each delivery's first attempt (undefined: none within the wait). */
export interface AdvanceResult {
  from: number;
  now: number;
  jobsRun: number;
  steps: TraceStep[];
  firstAttempts: Map<string, DeliveryAttempt | undefined>;
  waitedMs: number;
}

/** Moves the sandbox clock and reports what the move caused. */
export class ClockAdvances {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly jobs: JobRunner,
    private readonly trace: ClockTrace,
    private readonly deliveries: Deliveries,
  ) {}

  /**
   * Advances by `ms`, runs what fell due (each job as of its due time), then waits up to `waitMs`
   * (real time) for the first attempt of every delivery it caused; `wake` tells the delivery worker
   * after each turn commits (only the worker: a wake that also ran the due jobs would run the rest of
   * a long jump in one transaction, holding every request until it ends).
   */
  async advance(ms: number, waitMs: number, wake: () => void): Promise<AdvanceResult> {
    const { clock, store } = this.deps;
    const collecting = this.trace.start();
    try {
      const from = clock.now();
      const now = store.tx(() => clock.advance(ms));
      let jobsRun = 0;
      for (;;) {
        const ran = this.jobs.runDue(JOBS_PER_TURN);
        jobsRun += ran;
        await store.batch.committed();
        wake();
        if (ran < JOBS_PER_TURN) break;
        await store.batch.ready();
      }
      const started = Date.now();
      const firstAttempts = new Map<string, DeliveryAttempt | undefined>();
      // Time spent waiting only: reading the attempts once, with nothing to wait for, is no wait
      // (a loaded machine once made that read take a millisecond, reported as waited).
      let waited = false;
      for (;;) {
        const waiting = this.unanswered(collecting.steps, firstAttempts);
        if (waiting === 0 || Date.now() - started >= waitMs) break;
        waited = true;
        await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, waitMs)));
      }
      return { from, now, jobsRun, steps: collecting.steps, firstAttempts, waitedMs: waited ? Date.now() - started : 0 };
    } finally {
      this.trace.stop(collecting);
    }
  }

  /** The URL a delivery goes to, for the report. */
  urlOf(deliveryId: string): string {
    return this.deliveries.byId(deliveryId).url;
  }

  /** Reads the first attempt of each delivery not answered yet; returns how many still have none. */
  private unanswered(steps: TraceStep[], found: Map<string, DeliveryAttempt | undefined>): number {
    let waiting = 0;
    for (const step of steps)
      for (const event of step.events)
        for (const id of event.deliveryIds) {
          if (found.get(id)) continue;
          const first = this.deliveries.attemptsOf(id)[0];
          found.set(id, first);
          if (!first) waiting++;
        }
    return waiting;
  }
}
