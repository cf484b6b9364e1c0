// Runs timed jobs when they fall due on the sandbox clock. Each job runs in its own transaction
// and is marked done in it, so a crash mid-job reruns it and a finished job never runs twice. A
// job runs as of its due time (Clock.asOf): one that runs late, after `clock advance` jumped past
// it or a restart, stamps what it does with the time it fell due.
// The only writer of the jobs table: scheduling anywhere else would leave the timer asleep, and
// an idle sandbox would run the job only at the next clock advance.
import type { Job } from '../store/jobs-repo.js';
import type { JobKind, JobOf, PayloadArg } from './job-kinds.js';
import type { ServiceDeps } from './deps.js';
import type { ClockTrace } from './clock-trace.js';
import { isDatabaseBusy, isStorageFull } from '../store/open-database.js';
import { ThrottledLog } from '../runtime/throttled-log.js';
import { inRequestScope } from '../runtime/request-scope.js';
import { errorMessage } from '../errors.js';

/** Does the job's work; runs inside a transaction. */
export type JobHandler = (job: Job) => void;

/** Jobs one timer wake-up runs before requests get a turn (4 600 refunds falling due at once blocked the server for over a second). */
const TIMER_BATCH = 20;

/** Wait before running jobs again after a storage fault (a locked database, a full disk). */
const BUSY_RETRY_MS = 1000;

/** Wakes at the next due job; `runDue` is also called after a clock advance. */
export class JobRunner {
  private readonly handlers = new Map<string, JobHandler>();
  private timer: NodeJS.Timeout | undefined;
  /** Due time of the job the timer is armed for; undefined when none is armed. */
  private armedFor: number | undefined;
  private running = false;
  /** Storage faults repeat every BUSY_RETRY_MS while they last: one line per 30 s says so. */
  private readonly faults: ThrottledLog;

  constructor(
    private readonly deps: ServiceDeps,
    /** Records each job that runs while a `clock advance --report` collects. */
    private readonly trace?: ClockTrace,
  ) {
    this.faults = new ThrottledLog(deps.logger);
  }

  /** Registers the handler of a job kind. */
  register<K extends JobKind>(kind: K, handler: (job: JobOf<K>) => void): void {
    this.handlers.set(kind, handler as JobHandler);
  }

  /** Schedules a job (inside the caller's transaction) and re-arms the timer afterwards. */
  schedule<K extends JobKind>(kind: K, subjectId: string, dueAt: number, ...[payload]: PayloadArg<K>): void {
    this.deps.store.jobs.schedule(kind, subjectId, dueAt, payload ?? {});
    // The armed timer already wakes us early enough for this job: skip the re-arm query.
    if (this.armedFor !== undefined && this.armedFor <= dueAt) return;
    queueMicrotask(() => this.arm());
  }

  /** Drops the pending jobs of one kind and subject (the work happened another way). */
  cancel(kind: JobKind, subjectId: string): void {
    // A timer armed for a cancelled job wakes to find nothing due and re-arms: no need to re-arm now.
    this.deps.store.jobs.cancel(kind, subjectId);
  }

  /** Runs the pending jobs of one kind and subject now instead of at their sandbox time; returns how many ran. */
  runNow(kind: JobKind, subjectId: string): number {
    this.deps.store.jobs.expedite(kind, subjectId, this.deps.clock.now());
    return this.runDue();
  }

  start(): void {
    this.running = true;
    this.runDue();
  }

  stop(): void {
    this.running = false;
    this.armedFor = undefined;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Runs the jobs due now, at most `limit` of them (the rest on the next turn); returns how many ran. */
  runDue(limit = Infinity): number {
    const { store, clock, logger } = this.deps;
    let ran = 0;
    while (ran < limit) {
      const due = store.jobs.due(clock.now(), Math.min(100, limit - ran));
      if (due.length === 0) break;
      for (const job of due) {
        const handler = this.handlers.get(job.kind);
        try {
          store.tx(() => {
            if (!store.jobs.markDone(job.id)) return;
            // As of its due time: what it stamps (expired_at, paid_at, its event) says when it fell due.
            if (handler)
              clock.asOf(job.dueAt, () =>
                this.trace
                  ? this.trace.step(
                      () => ({ kind: 'job', at: job.dueAt, job: job.kind, subject: job.subjectId, events: [] }),
                      () => handler(job),
                    )
                  : handler(job),
              );
            else logger.error(`no handler for job kind ${job.kind}; job ${job.id} skipped`);
          });
          ran++;
        } catch (err) {
          if (isDatabaseBusy(err)) {
            // Nothing was written and the job is still due: try again in a moment, not in a hot loop.
            this.retryLater(`job ${job.kind} ${job.subjectId} waits: the database is locked (${errorMessage(err)})`);
            return ran;
          }
          if (isStorageFull(err)) {
            // Not the job's fault: marking it done would drop work the sandbox promised (a refund
            // settling, a payout). It stays due and runs once there is room again.
            this.retryLater(`job ${job.kind} ${job.subjectId} waits: the disk holding the database is full (${errorMessage(err)})`);
            return ran;
          }
          // A failing job must not block the ones behind it; it is marked done to avoid a hot loop.
          logger.error(`job ${job.kind} ${job.subjectId} failed: ${errorMessage(err)}`);
          try {
            store.jobs.markDone(job.id);
          } catch (markErr) {
            // Recording the failure failed too (a full disk rolls the transaction back, then the
            // lock is gone): the job stays due and is tried again in a moment.
            this.retryLater(`job ${job.kind} ${job.subjectId} could not be marked done: ${errorMessage(markErr)}`);
            return ran;
          }
        }
      }
    }
    this.arm();
    return ran;
  }

  private arm(): void {
    if (!this.running) return;
    let next: number | null;
    try {
      next = this.deps.store.jobs.nextDueAt();
    } catch (err) {
      // arm() also runs from a microtask after schedule(), where a throw would end the process.
      this.retryLater(`timed jobs could not read the next due time: ${errorMessage(err)}`);
      return;
    }
    if (next !== null) {
      this.armAt(next);
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = undefined;
  }

  private armAt(dueAt: number): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = dueAt;
    const wait = Math.max(0, Math.min(dueAt - this.deps.clock.now(), 60_000));
    this.timer = setTimeout(() => this.runFromTimer(), wait);
    this.timer.unref();
  }

  /** The timer's entry: an error thrown from a timer ends the process, so none may escape here. */
  private runFromTimer(): void {
    // Take the write lock the way requests do, waiting with timers: a checkpoint holding it for
    // a moment must not cost the jobs a second.
    this.deps.store.batch.ready().then(
      () => this.runDueOrRetry(),
      (err: unknown) => this.retryLater(`timed jobs could not run: the database is locked (${errorMessage(err)})`),
    );
  }

  private runDueOrRetry(): void {
    try {
      // A timed job is no request's doing: its events say so (the timeline names the job), and
      // its writes tie no answer to their batch (group-commit.ts).
      this.deps.store.batch.within(null, () => inRequestScope(null, () => this.runDue(TIMER_BATCH)));
    } catch (err) {
      // Reading the due jobs failed (the database is locked or unreadable): look again in a moment.
      this.retryLater(`timed jobs could not run: ${errorMessage(err)}`);
    }
  }

  /** Logs why the jobs cannot run now and wakes again in BUSY_RETRY_MS: every storage fault ends here. */
  private retryLater(why: string): void {
    this.faults.error('storage', `${why}; retrying in ${BUSY_RETRY_MS} ms`);
    this.armAt(this.deps.clock.now() + BUSY_RETRY_MS);
  }
}
