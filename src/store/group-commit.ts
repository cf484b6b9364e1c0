// Group commit: the writes of every request handled in one turn of the event loop share one
// SQLite transaction, committed a turn of the loop later, and no answer leaves before its commit.
// A commit's cost (writing the changed pages to the WAL) is mostly per transaction, not per row,
// so under load this raises creates per second while every acknowledged write stays durable.
//
// The batch is also where a lock held by another process is waited out. better-sqlite3 waits
// for a lock on the event-loop thread, so busy_timeout is kept short (open-database.ts) and a
// longer lock is waited for here with timers: ready() takes the write lock for the batch before
// a request's handler runs, so the handler's synchronous transaction joins a batch that already
// holds it. Retrying there, before anything ran, is the one place that needs no re-run of a
// handler (a Hono chain cannot be run twice) and cannot repeat a side effect.
//
// An answer waits for the batches its own request wrote in (answering()), not for whichever batch
// is open when it asks: a full disk can roll back a whole batch under a later unit, and the batch
// is then gone before an earlier request of the same turn asks committed().
//
// Which answer a unit works for is known the way runtime/request-scope.ts knows its request: a
// "current trail" set for the synchronous stretch of a request's handling (answering() and
// within(), which durableAnswer's scope runs around the route's handler), not AsyncLocalStorage.
// On Node 20 an ALS's run() turns on async hooks for every promise of the process, for good. What
// that costs a create now is small and noisy: bench/async-hooks-cost.js (one process, hooks on and
// off in alternate rounds) gave 0.97-1.14 of the CPU per create over five runs at load 6-16, and
// bench/compare-builds.js put this build within its spread of the one with the ALS (docs/benchmarks.md);
// the journal round measured a third when the main thread still parsed HTTP. Kept off all the same:
// its cost grows with every promise the request path makes.
// A unit run outside any such stretch (a handler's write after an await) is "anonymous": it is tied
// to every answer in handling at that moment, its own among them, so none reports it if its batch
// fails; the others fail with it conservatively, which only a failing batch (a full disk) makes
// visible. Work that is no answer's (the webhook worker, timed jobs) says so with within(null).
import { isDatabaseBusy, type Db } from './open-database.js';

/** How long a request waits for another connection's write lock before it answers database_busy. */
export const LOCK_WAIT_MS = 1000;
/** First wait before a waiting request tries the lock again: a checkpoint holds it a few ms only. */
const LOCK_POLL_FIRST_MS = 5;
/** The wait doubles up to this while the lock stays held (each try returns at once, busy or not). */
const LOCK_POLL_MS = 50;

/** One shared transaction and the requests waiting for its commit. */
interface Batch {
  waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }>;
  after: Array<() => void>;
  /** Run only once the batch committed; a unit that is undone drops the ones it added (onCommitted). */
  committed: Array<() => void>;
  /** Set when SQLite rolled the whole transaction back under a unit (a full disk can): the commit fails with it. Also a failed commit's error. */
  failure?: unknown;
  ended: boolean;
  /** Units of state run in it so far: 0 while it only holds the write lock or only records (see written, run). */
  units: number;
}

/** The batches one answer's own units of state ran in (answering()); closed once it is answered. */
export interface AnswerTrail {
  readonly batches: Batch[];
  open: boolean;
}

/**
 * Whose work runs now: an answer's trail (its synchronous stretch), null for work that is no
 * answer's (within(null): the webhook worker, timed jobs), undefined when not known (after an await).
 */
type Owner = AnswerTrail | null | undefined;

/** A request waiting for the write lock. */
interface LockWaiter {
  deadline: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Batches units of work into shared transactions. */
export class GroupCommit {
  private batch: Batch | undefined;
  private lockWaiters: LockWaiter[] = [];
  private lockTimer: NodeJS.Timeout | undefined;
  private lockPollMs = LOCK_POLL_FIRST_MS;
  /**
   * Set once a try found the lock held past busy_timeout (another process, not a checkpoint's
   * few ms): until a BEGIN succeeds again the connection's busy_timeout is 0, so nothing (the
   * webhook worker, timed jobs, a GET that writes) blocks the event loop waiting for that lock.
   */
  private locked = false;
  /** The connection's own busy_timeout, put back when a lock is gone. */
  private readonly waitMs: number;
  /**
   * Runs a unit in a SAVEPOINT (BEGIN outside a transaction). Built once: db.transaction() makes
   * four wrapper functions each time it is called, a cost every write of every request paid.
   */
  private readonly unit: (fn: () => unknown) => unknown;
  /** What repositories remember of the database, dropped whenever it may have changed behind them (onForget). */
  private readonly forgetters: Array<() => void> = [];
  /** Transactions of their own run so far (alone()): imports, resets and merchants' removals rewrite tables wholesale. */
  private alones = 0;
  /** Whose synchronous stretch runs now (see the top of this file). */
  private current: Owner = undefined;
  /** The trails of the answers in handling: an anonymous unit is tied to each. */
  private readonly live = new Set<AnswerTrail>();
  private anonymous = 0;

  constructor(private readonly db: Db) {
    this.waitMs = db.pragma('busy_timeout', { simple: true }) as number;
    this.unit = db.transaction((fn: () => unknown) => fn());
  }

  /** True while a batch is open (it holds the write lock, written to or not). */
  get pending(): boolean {
    return this.batch !== undefined;
  }

  /** True while the open batch has run a unit: only then can a read see a write not yet committed. */
  get written(): boolean {
    return this.batch !== undefined && this.batch.units > 0;
  }

  /** Units of state run so far while answers were in handling but none was known to be theirs (see the top of this file). */
  get anonymousUnits(): number {
    return this.anonymous;
  }

  /** Counts the transactions of their own (alone()): a row known from before a change of count may be gone. */
  get epoch(): number {
    return this.alones;
  }

  /**
   * Runs `fn` as one unit: a SAVEPOINT inside the open batch, so a throw undoes only this unit.
   * `state: false` is for a record no answer reports (the request journal): it does not count as a
   * write, so a batch holding only such units keeps no answer waiting, and its failure (a full
   * disk) fails no request.
   */
  run<T>(fn: () => T, state = true): T {
    if (!this.batch && !this.db.inTransaction) {
      const busy = this.tryBegin();
      if (busy !== undefined) throw busy;
    }
    const batch = this.batch;
    if (batch && state) batch.units += 1;
    const mark = batch?.committed.length ?? 0;
    try {
      const result = this.unit(fn) as T;
      // The answer this unit works for waits for this batch (a unit that threw left nothing in it);
      // a unit of no known answer, every answer in handling (see the top of this file).
      if (batch && state) {
        const owner = this.current;
        if (owner) tie(owner, batch);
        else if (owner === undefined && this.live.size > 0) {
          this.anonymous += 1;
          for (const trail of this.live) tie(trail, batch);
        }
      }
      return result;
    } catch (err) {
      // What the unit asked to run after the commit is undone with its writes.
      if (batch) batch.committed.length = mark;
      // What a repository remembered during the unit may be undone with it.
      this.forget();
      // Some errors (SQLITE_FULL among them) make SQLite roll back the whole transaction, not just
      // this unit's savepoint: the batch's other units are gone too, so its commit must fail.
      if (batch && this.batch === batch && !this.db.inTransaction) {
        batch.failure = err;
        this.batch = undefined;
      }
      throw err;
    }
  }

  /**
   * Resolves once the open batch holds the write lock, so the caller's next run() in this turn
   * cannot meet a lock. While another connection holds it, tries again (5 ms, then doubling up to
   * LOCK_POLL_MS) without ever blocking the event loop; rejects with SQLite's SQLITE_BUSY error
   * after `waitMs`.
   */
  ready(waitMs = LOCK_WAIT_MS): Promise<void> {
    if (this.batch) return Promise.resolve();
    // Requests already waiting mean the lock is held: queue behind them.
    if (this.lockWaiters.length === 0) {
      const busy = this.tryBegin();
      if (busy === undefined) return Promise.resolve();
      if (!isDatabaseBusy(busy)) return Promise.reject(busy);
    }
    return new Promise((resolve, reject) => {
      this.lockWaiters.push({ deadline: Date.now() + waitMs, resolve, reject });
      this.pollLock();
    });
  }

  /**
   * Runs `fn` in a transaction of its own, after committing the open batch: for work whose checks
   * happen at COMMIT (deferred foreign keys during an import), so its failure cannot undo others.
   */
  alone<T>(fn: () => T): T {
    this.commit();
    this.alones++;
    try {
      return this.db.transaction(fn).immediate();
    } finally {
      // Imports, resets and merchant removals rewrite tables without the repositories.
      this.forget();
    }
  }

  /**
   * Registers `fn` to drop what a repository remembers of the database, called whenever that may
   * have changed behind it: a unit or batch undone, or a transaction of its own (alone()).
   */
  onForget(fn: () => void): void {
    this.forgetters.push(fn);
  }

  private forget(): void {
    for (const fn of this.forgetters) fn();
  }

  /**
   * Runs `fn` (the handling of one request, up to its answer) with a trail of the batches its own
   * units of state run in, for committed(trail): the units of fn's synchronous stretch, of what it
   * runs within(trail), and any anonymous unit run while it is in handling.
   */
  async answering<T>(fn: (trail: AnswerTrail) => Promise<T>): Promise<T> {
    const trail: AnswerTrail = { batches: [], open: true };
    this.live.add(trail);
    try {
      return await this.within(trail, () => fn(trail));
    } finally {
      trail.open = false;
      this.live.delete(trail);
    }
  }

  /**
   * Runs `fn`'s synchronous stretch as the work of `trail`'s answer (a route's handler, resumed
   * after the middleware's awaits), or with null as no answer's work (the webhook worker, timed
   * jobs: their units tie no answer). What `fn` runs after an await is anonymous again.
   */
  within<T>(trail: AnswerTrail | null | undefined, fn: () => T): T {
    const outer = this.current;
    this.current = trail;
    try {
      return fn();
    } finally {
      this.current = outer;
    }
  }

  /**
   * Resolves once everything written so far is committed; rejects if that commit failed. With the
   * trail of an answer in handling: once the batches its units ran in are committed, rejecting if
   * one failed, even one that failed and closed before this call. An answer that wrote nothing
   * (a read) waits for the open batch, which may hold what it read, but never fails with it: a full
   * disk fails writes, not reads.
   */
  committed(trail?: AnswerTrail): Promise<void> {
    if (trail?.open && trail.batches.length > 0) return Promise.all(trail.batches.map(settled)).then(() => undefined);
    const batch = this.batch;
    // A batch without a write (only the lock, or only records no answer reports) has nothing to wait for.
    if (!batch || batch.units === 0) return Promise.resolve();
    if (trail?.open) return new Promise((resolve) => batch.waiters.push({ resolve, reject: () => resolve() }));
    return settled(batch);
  }

  /** Runs `fn` once the open batch has ended (committed or failed), or now when none is open (e.g. sending a webhook). */
  afterCommit(fn: () => void): void {
    if (this.batch) this.batch.after.push(fn);
    else fn();
  }

  /**
   * Runs `fn` right after the open batch commits, and never if it does not: a unit that throws
   * drops what it registered, and a failed batch drops everything. For handing a row written in
   * the unit on to work that must only see committed rows (a delivery to the webhook worker).
   * Returns false, registering nothing, when no batch is open (inside alone(), or no unit).
   */
  onCommitted(fn: () => void): boolean {
    if (!this.batch) return false;
    this.batch.committed.push(fn);
    return true;
  }

  /** Commits the open batch now (before closing the database). */
  flush(): void {
    this.commit();
  }

  /** Opens a batch: BEGIN IMMEDIATE takes the write lock (or throws SQLITE_BUSY after busy_timeout). */
  private begin(): void {
    this.db.exec('BEGIN IMMEDIATE');
    const batch: Batch = { waiters: [], after: [], committed: [], ended: false, units: 0 };
    this.batch = batch;
    // Commit one loop turn later: that turn's poll phase reads the requests which arrived while
    // this batch ran, so they join it. Under load that is about 8 creates per commit instead of 5
    // (40% fewer commits and WAL writes); an idle sandbox waits only for an empty poll.
    setImmediate(() => setImmediate(() => this.commit(batch)));
  }

  /** BEGIN IMMEDIATE (waiting busy_timeout unless `locked`), switching `locked` on what it meets; returns the error when it failed. */
  private tryBegin(): unknown {
    try {
      this.begin();
    } catch (err) {
      if (isDatabaseBusy(err) && !this.locked) {
        this.locked = true;
        // A plain pragma call, not a prepared statement: SQLite applies a PRAGMA when it compiles
        // it, so a prepared one run again takes effect a run late.
        this.db.pragma('busy_timeout = 0');
      }
      return err;
    }
    if (this.locked) {
      this.locked = false;
      this.db.pragma(`busy_timeout = ${this.waitMs}`);
    }
    return undefined;
  }

  private pollLock(): void {
    if (this.lockTimer) return;
    this.lockTimer = setTimeout(() => {
      this.lockTimer = undefined;
      this.tryLock();
    }, this.lockPollMs);
    this.lockPollMs = Math.min(this.lockPollMs * 2, LOCK_POLL_MS);
  }

  /** One try for the waiting requests. */
  private tryLock(): void {
    const busy = this.batch ? undefined : this.tryBegin();
    const waiters = this.lockWaiters;
    if (busy === undefined || !isDatabaseBusy(busy)) {
      this.lockWaiters = [];
      this.lockPollMs = LOCK_POLL_FIRST_MS;
      for (const w of waiters) {
        if (busy === undefined) w.resolve();
        else w.reject(busy);
      }
      return;
    }
    const now = Date.now();
    this.lockWaiters = waiters.filter((w) => w.deadline > now);
    for (const w of waiters) if (w.deadline <= now) w.reject(busy);
    if (this.lockWaiters.length > 0) this.pollLock();
    else this.lockPollMs = LOCK_POLL_FIRST_MS;
  }

  private commit(batch = this.batch): void {
    if (!batch || batch.ended) return;
    batch.ended = true;
    if (this.batch === batch) this.batch = undefined;
    const { waiters, after } = batch;
    try {
      if (batch.failure !== undefined) throw batch.failure;
      if (!this.db.open) throw new Error('the database was closed before the commit');
      try {
        this.db.exec('COMMIT');
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
    } catch (err) {
      batch.failure = err;
      this.forget();
      for (const w of waiters) w.reject(err);
      // The delivery worker waits here for a wake-up; a failed batch must not leave it asleep.
      for (const fn of after) fn();
      return;
    }
    for (const fn of batch.committed) fn();
    for (const w of waiters) w.resolve();
    for (const fn of after) fn();
  }
}

/** Adds `batch` to the batches `trail`'s answer waits for, once, while it is in handling. */
function tie(trail: AnswerTrail, batch: Batch): void {
  if (trail.open && trail.batches.at(-1) !== batch && !trail.batches.includes(batch)) trail.batches.push(batch);
}

/** Resolves once `batch` has committed; rejects with its failure (at once when it has ended already). */
function settled(batch: Batch): Promise<void> {
  if (batch.ended) return batch.failure === undefined ? Promise.resolve() : Promise.reject(batch.failure);
  return new Promise((resolve, reject) => batch.waiters.push({ resolve, reject }));
}
