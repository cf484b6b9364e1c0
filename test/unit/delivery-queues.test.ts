// The worker's per-receiver queues of due deliveries (src/webhooks/delivery/queues.ts) alone,
// through their DueReader, over an in-memory outbox that reads as the deliveries repository does
// (due rows after a cursor, in (due time, rowid) order, leased rows left out) and tells the queues
// where a write made a row due, as the deliveries repository's onDue listener does. Each guard of the cursor is tested
// on its own: a write that makes a row due before the cursor, sandbox time going back, and the
// spill point of a full receiver; then a model of the worker's writes (fast-check) checks that
// a row is never taken twice, a receiver never gets more than its cap, and every due row is taken.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Delivery } from '../../src/store/deliveries-repo.js';
import type { DueCursor, DueRow } from '../../src/store/delivery-claim.js';
import { DeliveryQueues, type DueReader } from '../../src/webhooks/delivery/queues.js';

/** Attempts in flight to one receiver at most, as the worker sets it. */
const PER_RECEIVER = 8;
/** Due rows one receiver's queue holds before it spills (QUEUE_CAP in queues.ts). */
const QUEUE_CAP = 512;

interface Row {
  id: string;
  url: string;
  at: number;
  rowid: number;
  status: 'pending' | 'succeeded';
  leased: boolean;
}

const after = (row: Row, cursor: DueCursor) => row.at > cursor.at || (row.at === cursor.at && row.rowid > cursor.rowid);

/** An outbox in memory: the reads the queues make, and the writes that tell them where a row fell due. */
class MemoryOutbox implements DueReader {
  readonly rows = new Map<string, Row>();
  private nextRowid = 1;
  /** The rows in due order, made again after a write that moves one (the index the repository reads). */
  private sorted: Row[] | undefined;
  /** Told where a write made a row due (the deliveries repository's onDue); unset, the queues are not told. */
  watcher: ((at: number, rowid: number, url?: string) => void) | undefined;
  /** Rows the queues have read, all calls together. */
  read = 0;

  dueAfter(cursor: DueCursor, now: number, limit: number, until?: DueCursor): Array<DueRow<Delivery>> {
    this.sorted ??= [...this.rows.values()].sort((a, b) => a.at - b.at || a.rowid - b.rowid);
    const rows = this.sorted;
    // The first row after the cursor, by bisection; then on in due order until `limit` rows, `now` or `until`.
    let low = 0;
    let high = rows.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (after(rows[middle]!, cursor)) high = middle;
      else low = middle + 1;
    }
    const found: Array<DueRow<Delivery>> = [];
    for (let i = low; i < rows.length && found.length < limit; i++) {
      const row = rows[i]!;
      if (row.at > now || (until && after(row, until))) break;
      if (row.status === 'pending' && !row.leased) found.push({ cursor: { at: row.at, rowid: row.rowid }, delivery: delivery(row) });
    }
    this.read += found.length;
    return found;
  }

  /** A new pending row due at `at`. */
  insert(url: string, at: number): Row {
    const rowid = this.nextRowid++;
    const row: Row = { id: `whd_${rowid}`, url, at, rowid, status: 'pending', leased: false };
    this.rows.set(row.id, row);
    this.sorted = undefined;
    this.watcher?.(at, rowid, url);
    return row;
  }

  /** A pending row's next attempt moved to `at` (a fault's hold, a requeue), its lease ended. */
  due(row: Row, at: number): void {
    Object.assign(row, { at, status: 'pending', leased: false });
    this.sorted = undefined;
    this.watcher?.(at, 0);
  }

  /** A failed attempt recorded with its retry due at `at`: the repository's finish, which names the row's URL. */
  retry(row: Row, at: number): void {
    Object.assign(row, { at, status: 'pending', leased: false });
    this.sorted = undefined;
    this.watcher?.(at, 0, row.url);
  }
}

/** The delivery the repository would read for a row (only id and url matter to the queues). */
function delivery(row: Row): Delivery {
  return {
    id: row.id,
    eventId: `evt_${row.rowid}`,
    eventType: 'payment.captured',
    merchantId: 'mer_sandbox',
    url: row.url,
    endpointId: null,
    contentType: 'application/json',
    body: '{}',
    status: 'pending',
    manual: false,
    attempts: 0,
    nextAttemptAt: row.at,
    leaseUntil: null,
    lastStatus: null,
    lastError: null,
    createdAt: row.at,
    updatedAt: row.at,
    traceParent: null,
    traceState: null,
  };
}

/** Queues over `outbox`, told of its writes as the worker's are; `round` fills and takes as one worker pass does, and leases what it took. */
function queuesOver(outbox: MemoryOutbox, told = true) {
  const q = new DeliveryQueues(outbox, PER_RECEIVER);
  if (told) outbox.watcher = (at, rowid, url) => q.rewind(at, rowid, url);
  const round = (now: number, room = 32) => {
    q.fill(now, room);
    const taken = q.take(room);
    for (const d of taken) outbox.rows.get(d.id)!.leased = true;
    return taken;
  };
  /** A taken delivery's attempt succeeded: recorded, then its slot freed. */
  const succeed = (d: Delivery) => {
    Object.assign(outbox.rows.get(d.id)!, { status: 'succeeded', leased: false });
    q.done(d);
  };
  return { q, round, succeed };
}

describe('the cursor guards, each alone', () => {
  it('a write that makes a row due before the cursor has it read again', () => {
    const outbox = new MemoryOutbox();
    const { round, succeed } = queuesOver(outbox);
    for (const at of [100, 200, 300]) outbox.insert('http://127.0.0.1:9/a', at);
    const first = round(1000);
    expect(first.map((d) => d.nextAttemptAt)).toEqual([100, 200, 300]);
    for (const d of first) succeed(d);
    // An event stamped with an earlier due time (a job's), after the cursor passed 300; the clock stays.
    const early = outbox.insert('http://127.0.0.1:9/a', 50);
    expect(round(1000).map((d) => d.id)).toEqual([early.id]);
    // A finished delivery queued again (retry-failed) is due now, before the cursor too.
    outbox.due(outbox.rows.get(first[1]!.id)!, 150);
    expect(round(1000).map((d) => d.id)).toEqual([first[1]!.id]);
  });

  it('fill() with an earlier now than the last reads the outbox from its start', () => {
    const outbox = new MemoryOutbox();
    // Not told of writes: only sandbox time going back can bring the cursor back.
    const { round, succeed } = queuesOver(outbox, false);
    for (const at of [100, 200, 300]) outbox.insert('http://127.0.0.1:9/a', at);
    for (const d of round(1000)) succeed(d);
    // Sandbox time went back (a reset reloaded the clock) and the outbox has a row due before the cursor.
    const restored = outbox.insert('http://127.0.0.1:9/a', 50);
    expect(round(1000)).toEqual([]);
    expect(round(500).map((d) => d.id)).toEqual([restored.id]);
  });

  it("a full receiver's spill point moves back when one of its rows falls due before it: that row is taken exactly once", () => {
    const outbox = new MemoryOutbox();
    const { q, round, succeed } = queuesOver(outbox);
    const url = 'http://127.0.0.1:9/hook';
    const rows = Array.from({ length: QUEUE_CAP + 88 }, (_, i) => outbox.insert(url, i + 1));
    const late = outbox.insert(url, 10_000);
    const taken = new Map<string, number>();
    const takeOnce = (now: number) => {
      const batch = round(now);
      for (const d of batch) taken.set(d.id, (taken.get(d.id) ?? 0) + 1);
      return batch;
    };
    let inFlight = takeOnce(1000);
    // 512 queued, the other 88 passed over: the receiver spilled at its 513th row.
    expect(inFlight).toHaveLength(PER_RECEIVER);
    expect(q.queued).toBe(QUEUE_CAP - PER_RECEIVER);
    // The late row falls due at 300, before the spill point and the cursor (a fault's hold moved it).
    outbox.due(late, 300);
    for (let pass = 0; pass < 200 && inFlight.length > 0; pass++) {
      for (const d of inFlight) succeed(d);
      inFlight = takeOnce(1000);
    }
    expect(taken.get(late.id)).toBe(1);
    expect([...taken.values()].every((times) => times === 1)).toBe(true);
    expect(taken.size).toBe(rows.length + 1);
  });

  it("a dead receiver's backlog: each retry due before the cursor is read back for its receiver, not with every later row again", () => {
    const outbox = new MemoryOutbox();
    const { q } = queuesOver(outbox);
    const dead = 'http://127.0.0.1:9/hook';
    const live = 'http://127.0.0.1:10/hook';
    // 2 000 creates' webhooks queued for a receiver that refuses every connection, one attempt at a
    // time; each retry counts from when its attempt was due, so it falls due at once, before the cursor.
    for (let i = 0; i < 2000; i++) outbox.insert(dead, i);
    const now = 10_000;
    const attempts = new Map<string, number>();
    let pass = 0;
    for (; pass < 5000 && [...outbox.rows.values()].some((row) => row.status === 'pending'); pass++) {
      q.fill(now, 32);
      const taken = q.take(1);
      if (taken.length === 0) break;
      for (const d of taken) {
        const row = outbox.rows.get(d.id)!;
        const tries = (attempts.get(d.id) ?? 0) + 1;
        attempts.set(d.id, tries);
        // Two tries each to the dead receiver, the second one good; one to the live one.
        if (tries < 2 && row.url === dead) outbox.retry(row, row.at + 1000);
        else row.status = 'succeeded';
        q.done(d);
      }
      // A live receiver's webhook now and then.
      if (pass % 100 === 0) outbox.insert(live, now);
    }
    expect([...outbox.rows.values()].filter((row) => row.status === 'pending')).toEqual([]);
    expect(attempts.size).toBe(outbox.rows.size);
    expect([...attempts].filter(([id, tries]) => tries !== (outbox.rows.get(id)!.url === dead ? 2 : 1))).toEqual([]);
    // Each row read a few times (by the fill, then read back after a spill or a retry), not once
    // per retry: moving the cursor back had the 2 000 rows read about 1 000 times each.
    expect(outbox.read).toBeLessThan(20 * outbox.rows.size);
  });
});

/** One step of the worker's life with the outbox, as the model runs it. */
type Step =
  | { kind: 'insert'; receiver: number; count: number; offset: number }
  | { kind: 'round'; room: number }
  | { kind: 'end'; pick: number; outcome: 'succeeded' | 'retry' | 'overdue-retry' | 'hold' | 'claim-lost' }
  | { kind: 'requeue'; pick: number }
  | { kind: 'advance'; ms: number };

const RECEIVERS = ['http://127.0.0.1:9', 'http://127.0.0.1:10', 'https://shop.example', 'http://[::1]:8080'];

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('insert' as const),
      receiver: fc.nat(RECEIVERS.length - 1),
      // Mostly a few rows, sometimes a backlog larger than a queue (a dead receiver's).
      count: fc.oneof(
        { weight: 3, arbitrary: fc.integer({ min: 1, max: 5 }) },
        { weight: 1, arbitrary: fc.integer({ min: 500, max: 700 }) },
      ),
      // Due in the past (an event stamped with its due time), now, or later.
      offset: fc.integer({ min: -5_000, max: 5_000 }),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('round' as const), room: fc.integer({ min: 1, max: 32 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('end' as const),
      pick: fc.nat(),
      outcome: fc.constantFrom('succeeded' as const, 'retry' as const, 'overdue-retry' as const, 'hold' as const, 'claim-lost' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('requeue' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 3_000 }) }) },
);

describe('a model of the worker over the outbox', () => {
  it('never takes a row twice or past a receiver cap, and takes every due row', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60, size: 'max' }), (steps) => {
        const outbox = new MemoryOutbox();
        const { q, succeed } = queuesOver(outbox);
        const inFlight: Delivery[] = [];
        let now = 1_000_000;
        /** One worker pass; true when the fill says more may be due than it read. */
        const take = (room: number) => {
          const more = q.fill(now, room);
          for (const d of q.take(room)) {
            const row = outbox.rows.get(d.id)!;
            const wrong = row.status !== 'pending' ? 'not pending' : row.leased ? 'in flight' : row.at > now ? 'not due yet' : undefined;
            if (wrong) throw new Error(`${d.id} was taken while ${wrong}`);
            row.leased = true;
            inFlight.push(d);
          }
          for (const origin of RECEIVERS) {
            const count = inFlight.filter((d) => d.url.startsWith(origin)).length;
            if (count > PER_RECEIVER) throw new Error(`${count} attempts in flight to ${origin}`);
            if (q.inFlightTo(new URL(origin).origin) !== count)
              throw new Error(`the queues count ${q.inFlightTo(new URL(origin).origin)} in flight to ${origin}, not ${count}`);
          }
          return more;
        };
        for (const s of steps) {
          if (s.kind === 'insert') for (let i = 0; i < s.count; i++) outbox.insert(`${RECEIVERS[s.receiver]}/hook/${i}`, now + s.offset);
          else if (s.kind === 'round') take(s.room);
          else if (s.kind === 'advance') now += s.ms;
          else if (s.kind === 'requeue') {
            const finished = [...outbox.rows.values()].filter((row) => row.status === 'succeeded');
            if (finished.length) outbox.due(finished[s.pick % finished.length]!, now);
          } else if (inFlight.length) {
            const [d] = inFlight.splice(s.pick % inFlight.length, 1);
            const row = outbox.rows.get(d!.id)!;
            if (s.outcome === 'succeeded') succeed(d!);
            else if (s.outcome === 'claim-lost') {
              // The claim failed (database busy): nothing was leased, the delivery goes back to the head of its queue.
              row.leased = false;
              q.putBack(d!);
            } else {
              // A failed attempt retried later (or due already: its wait counts from when it was
              // due), or a fault's hold: recorded, then the slot freed.
              if (s.outcome === 'retry') outbox.retry(row, now + 1_000);
              else if (s.outcome === 'overdue-retry') outbox.retry(row, row.at + 1_000);
              else outbox.due(row, now + 60_000);
              q.done(d!);
            }
          }
        }
        // Every attempt in flight ends well and the clock runs far ahead: every pending row is taken, once.
        for (const d of inFlight.splice(0)) succeed(d);
        now += 1_000_000;
        for (let pass = 0; pass < 10_000; pass++) {
          const more = take(32);
          if (inFlight.length === 0 && !more) break;
          for (const d of inFlight.splice(0)) succeed(d);
        }
        expect([...outbox.rows.values()].filter((row) => row.status === 'pending').map((row) => row.id)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});
