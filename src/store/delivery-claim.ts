// The claim of due deliveries: which pending rows a pass of the delivery worker leases, fairly
// across receivers, so two passes never send the same attempt twice.
import type { Statement } from 'better-sqlite3';
import type { Db } from './open-database.js';

/** Due rows one query of a claim reads, at most: enough to reach a healthy receiver behind hundreds of a dead one's rows, few enough that a claim behind a busy receiver's backlog stays cheap. */
const SCAN_LIMIT = 512;

/**
 * The due rows, leaving out the receivers (origins) already at their cap: dueRowsWithout(count)
 * is the query that leaves out `count` of them, prepared on first use.
 */
function dueRowQueries(db: Db): (count: number) => Statement {
  // INDEXED BY: without statistics the planner picks deliveries_status_created (status = ?) and
  // sorts every pending row on each wake, which made a create cost O(backlog) while a receiver was down.
  // The due rows, leaving out the receivers (origins) already at their cap: SQLite skips a saturated
  // receiver's backlog in C, where a walk in JavaScript cost about 2 us a row on every claim (it
  // halved /v1/payments throughput behind a single busy receiver). One statement per number of
  // receivers left out; an origin that does not prefix its stored URLs is still skipped in the walk.
  const dueRowsExcept = new Map<number, Statement>();
  return (count: number): Statement => {
    let statement = dueRowsExcept.get(count);
    if (!statement) {
      const skip = Array.from({ length: count }, () => ' AND url <> ? AND substr(url, 1, ?) <> ?').join('');
      // The inner LIMIT bounds the rows SQLite reads (a filter alone would read the whole backlog).
      statement = db.prepare(
        `SELECT id, url FROM (SELECT id, url, next_attempt_at FROM deliveries INDEXED BY deliveries_due WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?) ORDER BY next_attempt_at LIMIT ?) WHERE 1${skip} ORDER BY next_attempt_at`,
      );
      dueRowsExcept.set(count, statement);
    }
    return statement;
  };
}

/** How many deliveries one receiver may have in flight, and how many each has already. */
interface Fairness {
  receiverOf: (url: string) => string;
  perReceiver: number;
  busy: ReadonlyMap<string, number>;
}

/** The ids of up to `limit` due rows, in order, none past its receiver's cap. */
function pickDue(dueRowsWithout: (count: number) => Statement, now: number, limit: number, fair: Fairness): Set<string> {
  const { receiverOf, perReceiver } = fair;
  // Walk the due rows in order, skipping saturated receivers, until `limit` are picked: a dead
  // receiver's backlog sits ahead of newer rows for healthy ones, so a fixed-size window would
  // hide them. Each receiver that reaches its cap is left out of a fresh query (at most a few:
  // the cap is a quarter of the slots); SCAN_LIMIT bounds the rows read behind a huge backlog.
  const taken = new Map(fair.busy);
  const picked = new Set<string>();
  let scanned = 0;
  walk: while (scanned < SCAN_LIMIT) {
    const full = [...taken].filter(([, count]) => count >= perReceiver).map(([receiver]) => receiver);
    const params = full.flatMap((origin) => [origin, origin.length + 1, `${origin}/`]);
    for (const { id, url } of dueRowsWithout(full.length).iterate(now, now, SCAN_LIMIT, ...params) as IterableIterator<{
      id: string;
      url: string;
    }>) {
      scanned++;
      if (picked.has(id)) continue; // picked before the last re-query; leased only after the walk
      const receiver = receiverOf(url);
      const count = taken.get(receiver) ?? 0;
      if (count >= perReceiver) continue;
      taken.set(receiver, count + 1);
      picked.add(id);
      if (picked.size === limit) break walk;
      // This receiver is now at its cap: ask again without its backlog.
      if (count + 1 >= perReceiver) continue walk;
    }
    break;
  }
  return picked;
}

/**
 * The claim of due deliveries: claimDue(now, leaseUntil, limit, receiverOf, perReceiver, busy)
 * leases up to `limit` due deliveries until `leaseUntil`, at most `perReceiver` in flight to one
 * receiver (`receiverOf(url)`; `busy` counts the ones already in flight), so one slow or dead
 * receiver cannot hold every sending slot while other merchants' webhooks wait. Returns the ones
 * the call won, each read with `get`.
 */
export function createDueClaim<T>(db: Db, get: (id: string) => T) {
  const dueRowsWithout = dueRowQueries(db);
  const lease = db.prepare(
    "UPDATE deliveries SET lease_until = ? WHERE id = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until <= ?)",
  );
  return (
    now: number,
    leaseUntil: number,
    limit: number,
    receiverOf: (url: string) => string = (url) => url,
    perReceiver = Infinity,
    busy: ReadonlyMap<string, number> = new Map(),
  ): T[] =>
    db
      .transaction(() => {
        const picked = pickDue(dueRowsWithout, now, limit, { receiverOf, perReceiver, busy });
        // Leased after the walk: the connection runs no other statement while iterating.
        return [...picked].filter((id) => lease.run(leaseUntil, id, now).changes === 1).map(get);
        // IMMEDIATE: take the write lock before reading, so a checkpoint that reset the WAL makes
        // us wait (busy_timeout) instead of failing with a stale read snapshot (SQLITE_BUSY).
      })
      .immediate();
}
