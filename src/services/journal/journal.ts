// The request journal: every request the sandbox answered, kept with its answer, masked. The one
// journal middleware (http/middleware/journal.ts) hands each request over as it was, and here it is
// masked and its ids read (journal-row.ts) and written; behind the front thread, the thread builds
// the row from the bytes it read and wrote, and here it is only written (recordRows).
//
// Writing costs one prepared INSERT per request and nothing per request besides: the requests of
// one turn of the event loop are queued and written together in one unit at the end of that turn,
// which joins the group-commit batch their own writes are in (store/group-commit.ts commits a turn
// later), so the journal adds no transaction, no commit and no await to a request. The bound (count
// and age) is kept in the same unit: a DELETE by seq range when the count passes --journal-size.
import { keptTracestate, parseTraceparent } from '../../domain/traceparent.js';
import type { JournalFilter, JournalRow, JournalSurface, NewJournalRow } from '../../store/journal-repo.js';
import type { ServiceDeps } from '../deps.js';
import { readPage } from '../pagination.js';
import { errorMessage, SandboxError } from '../../errors.js';
import { isDatabaseBusy } from '../../store/open-database.js';
import { checkExpectation, type ExpectationResult } from '../../domain/request-match.js';
import { parseSince } from '../../domain/since.js';
import type { Expectation } from '../../contracts/journal.js';
import { toRecordedRequest } from '../../views/journal.js';
import type { Page } from '../../views/list.js';
import { journalRow, type RequestRecord } from './journal-row.js';

export { BODY_LIMIT_CHARS, type RequestRecord } from './journal-row.js';

/** The newest requests an expectation is checked against. */
export const EXPECT_WINDOW = 5000;
/** How often (wall ms) the rows past --journal-age are looked for: the oldest row read, the table scanned once it is past the age (journal-repo.ts dropOlder). */
const AGE_CHECK_MS = 1000;
/**
 * The most rows a turn of the event loop writes (about 10 ms here): a turn's own requests are far
 * fewer, but the rows that waited out another process's lock are a few thousand a second of it, and
 * written at once they held the event loop for 110-130 ms as the lock ended (the bench's reads
 * during a lock). The rest are written in the turns after, oldest first.
 */
const ROWS_PER_TURN = 1000;

/** The request journal's use cases: record (from the middleware), list, and the bound. */
export class Journal {
  /** This turn's requests: as the middleware saw them, or rows the front thread built (journal-row.ts). */
  private pending: Array<RequestRecord | NewJournalRow> = [];
  private scheduled = false;
  private lastAgeCheck = 0;
  /** True while rows wait for another connection's write lock (waitForLock). */
  private waiting = false;
  /**
   * Rows built (masked, their merchant found) and not yet written, oldest first: those that wait for
   * that lock, or what is left of a backlog past ROWS_PER_TURN for the next turn.
   */
  private waitingRows: NewJournalRow[] = [];
  private readonly listeners: Array<(row: JournalRow) => void> = [];
  private readonly flushSoon = () => this.write(ROWS_PER_TURN);

  constructor(private readonly deps: ServiceDeps) {}

  /** True when the journal keeps requests (--journal-size above 0). */
  get enabled(): boolean {
    return this.deps.config.journalSize > 0;
  }

  /** Queues a request; it is written with the others of this turn of the event loop. */
  record(request: RequestRecord): void {
    this.queue(request);
  }

  /** Queues rows the front thread built and masked (journal-row.ts); written like record()'s. */
  recordRows(rows: readonly NewJournalRow[]): void {
    for (const row of rows) this.queue(row);
  }

  private queue(entry: RequestRecord | NewJournalRow): void {
    this.pending.push(entry);
    this.schedule();
  }

  /** Writes what is queued at the end of this turn of the event loop. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flushSoon);
  }

  /** Calls `fn` with each row once written (the OTLP exporter); only while something listens is more than the row built. */
  onRecorded(fn: (row: JournalRow) => void): void {
    this.listeners.push(fn);
  }

  /** Writes every queued request now, in one unit of the open batch (or a batch of their own): before a read of the journal, and at close. */
  flush(): void {
    this.write(Number.POSITIVE_INFINITY);
  }

  /** Writes up to `most` of the queued rows, oldest first, in one unit, and schedules the rest for the next turn. */
  private write(most: number): void {
    this.scheduled = false;
    // Rows waiting for another connection's lock are written by waitForLock's retry, not by every turn.
    if (this.waiting) {
      this.buildWaiting();
      return;
    }
    if (this.pending.length === 0 && this.waitingRows.length === 0) return;
    const { store, config, clock, logger } = this.deps;
    // A retry that comes after close(): the rows it held went with the process, as a kill's would.
    if (!store.db.open) return;
    const requests = this.pending;
    this.pending = [];
    const rows = this.waitingRows;
    this.waitingRows = [];
    const count = rows.length + requests.length;
    let written = rows;
    let built = false;
    try {
      for (const request of requests) rows.push(this.row(request));
      built = true;
      if (rows.length > most) {
        written = rows.slice(0, most);
        this.waitingRows = rows.slice(most);
        this.schedule();
      }
      // A record, not state: a batch holding only journal rows keeps no answer waiting, and a full
      // disk that fails it fails no request (reads still answer, as docs/reliability.md says).
      store.recordTx(() => {
        let last = 0;
        for (const row of written) {
          last = store.journal.insert(row);
          if (row.traceparent !== null) this.keepTrace(row);
        }
        if (last > config.journalSize) store.journal.dropUpTo(last - config.journalSize);
        const wall = clock.now() - clock.offset();
        if (wall - this.lastAgeCheck >= AGE_CHECK_MS) {
          this.lastAgeCheck = wall;
          store.journal.dropOlder(wall - config.journalAgeMs);
        }
      });
    } catch (err) {
      // Another connection holds the write lock (another process): the rows wait for it, as a
      // write request does, instead of being lost.
      if (isDatabaseBusy(err) && built) {
        this.waitForLock(rows);
        return;
      }
      // The journal is a record for people, not state: a write it cannot make (a full disk)
      // loses these entries, never a request.
      logger.error(`the request journal could not write ${built ? written.length : count} request(s): ${errorMessage(err)}`);
      return;
    }
    if (this.listeners.length > 0) for (const row of written) for (const fn of this.listeners) fn({ ...row, seq: 0 });
  }

  /**
   * Keeps `rows` (built) waiting, ahead of what comes since, and writes them once the write lock is
   * free: the batch's own wait for it (GroupCommit.ready(), which write requests wait with), tried
   * again while the lock stays held.
   */
  private waitForLock(rows: NewJournalRow[]): void {
    this.waitingRows = rows;
    this.keepBound();
    if (this.waiting) return;
    this.waiting = true;
    const retry = () => {
      this.waiting = false;
      this.write(ROWS_PER_TURN);
    };
    this.deps.store.batch.ready().then(retry, retry);
  }

  /**
   * While rows wait for the lock, the requests of each turn are built then, as in any turn, and
   * wait with them: built all at the retry instead, a second's worth held the event loop for 50-90
   * ms (the bench's reads during a lock, at 700 a second).
   */
  private buildWaiting(): void {
    if (this.pending.length === 0) return;
    const requests = this.pending;
    this.pending = [];
    try {
      for (const request of requests) this.waitingRows.push(this.row(request));
    } catch (err) {
      this.deps.logger.error(`the request journal could not write ${requests.length} request(s): ${errorMessage(err)}`);
    }
    this.keepBound();
  }

  /** At most --journal-size rows wait: the bound would delete older ones in the same write anyway. */
  private keepBound(): void {
    const over = this.waitingRows.length - this.deps.config.journalSize;
    if (over > 0) this.waitingRows.splice(0, over);
  }

  /** One page of rows, newest first (or, with `endingBefore`, the rows newer than it), and whether more follow. */
  list(
    filter: Omit<JournalFilter, 'before' | 'after' | 'order' | 'limit'> & { limit: number; startingAfter?: string; endingBefore?: string },
  ): Page<JournalRow> {
    this.flush();
    const { startingAfter, endingBefore, limit, ...where } = filter;
    const before = startingAfter === undefined ? undefined : this.seqOf(startingAfter, 'starting_after');
    const after = endingBefore === undefined ? undefined : this.seqOf(endingBefore, 'ending_before');
    if (after !== undefined) {
      // The rows just newer than `after`, oldest first, then newest first like every page.
      const rows = this.deps.store.journal.list({ ...where, after, order: 'oldest', limit: limit + 1 });
      return { data: rows.slice(0, limit).reverse(), hasMore: rows.length > limit };
    }
    return readPage(limit, (n) => this.deps.store.journal.list({ ...where, before, order: 'newest', limit: n }));
  }

  /** Every row kept that touched one of `ids`, oldest first (a payment's timeline). */
  touching(ids: readonly string[], limit: number): JournalRow[] {
    this.flush();
    return this.deps.store.journal.list({ ids, order: 'oldest', limit });
  }

  /**
   * Checks the requests kept against what the merchant should have sent (expectRequested, the CLI):
   * the newest EXPECT_WINDOW of the merchant's API and page requests (the control plane's too when
   * the path asked for is one of /_sandbox), since `since` when given.
   */
  expect(expectation: Expectation): ExpectationResult {
    this.flush();
    const since = expectation.since === undefined ? undefined : parseSince(expectation.since, this.deps.clock.now());
    const rows = this.deps.store.journal
      .list({ merchantId: expectation.merchant, since, order: 'newest', limit: EXPECT_WINDOW })
      .filter((row) => row.surface !== 'control' || expectation.path?.startsWith('/_sandbox'))
      .reverse();
    return checkExpectation(rows.map(toRecordedRequest), expectation);
  }

  /** Rows kept now (the bound's tests and the bench). */
  count(): number {
    this.flush();
    return this.deps.store.journal.count();
  }

  private seqOf(id: string, param: string): number {
    const seq = this.deps.store.journal.seqOf(id);
    if (seq === undefined)
      throw new SandboxError(
        'resource_missing',
        `no request ${id} in the journal (it keeps the last ${this.deps.config.journalSize}); use an id from the list`,
        param,
      );
    return seq;
  }

  /** The row to store: built here unless the front thread built it; the merchant of a page or control request found from its ids. */
  private row(entry: RequestRecord | NewJournalRow): NewJournalRow {
    const row = 'requestHeaders' in entry ? entry : journalRow(entry);
    return row.merchantId === null && row.surface !== 'api' ? { ...row, merchantId: this.ownerOf(row.surface, row.ids) } : row;
  }

  /** The merchant of the first object a page or control request touched (an API request's merchant is its credentials'). */
  private ownerOf(surface: JournalSurface, ids: readonly string[]): string | null {
    if (surface === 'api') return null;
    const { store } = this.deps;
    for (const id of ids) {
      const owner =
        store.payments.get(id)?.merchantId ??
        store.transactions.get(id)?.merchantId ??
        store.challenges.get(id)?.merchantId ??
        store.checkoutSessions.byToken(id)?.merchantId ??
        store.checkoutSessions.get(id)?.merchantId;
      if (owner) return owner;
    }
    return null;
  }

  /** Keeps the trace a request's traceparent started with each object it touched (the first trace of an object wins). */
  private keepTrace(row: NewJournalRow): void {
    const trace = parseTraceparent(row.traceparent ?? undefined);
    if (!trace) return;
    for (const objectId of row.ids)
      this.deps.store.journal.keepTrace(row.merchantId, {
        objectId,
        traceId: trace.traceId,
        parentId: trace.parentId,
        requestId: row.id,
        flags: trace.flags,
        traceState: keptTracestate(row.requestHeaders.tracestate),
      });
  }
}
