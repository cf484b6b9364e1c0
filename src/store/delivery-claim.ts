// The outbox reads and the lease of the delivery worker. Due rows are read in (next_attempt_at,
// rowid) order after a cursor the worker keeps (webhooks/delivery/queues.ts), so a row waiting in
// its receiver's queue is never read again; the claim leases a batch of rows in one statement
// each, inside the shared write batch, and wins only those still as they were read.
import type { Db } from './open-database.js';

/** A place in the due order: rows after it are (next_attempt_at, rowid) greater. */
export interface DueCursor {
  at: number;
  rowid: number;
}

/** Before every row. */
export const DUE_START: DueCursor = { at: Number.MIN_SAFE_INTEGER, rowid: 0 };

/** A due row with its place in the due order. */
export interface DueRow<T> {
  cursor: DueCursor;
  delivery: T;
}

/** What a claim needs to know of a row it leases: the attempts it was read with. */
export interface ClaimCandidate {
  id: string;
  attempts: number;
}

/**
 * dueAfter(cursor, now, limit, until?): up to `limit` unleased pending rows due by `now`, after
 * `cursor` (and not after `until`), in due order. claimDue(candidates, now, leaseUntil): leases
 * the candidates still pending, unleased and at the attempt count they were read with, in the
 * caller's transaction; returns the ids won (a reset, a merchant's deletion or another attempt
 * changed the others).
 */
export function createDueClaim<T>(db: Db, columns: string, from: string, fromRow: (row: never) => T) {
  // INDEXED BY: without statistics the planner picks deliveries_status_created and sorts every
  // pending row; deliveries_due holds only pending rows, in due order, rowid last.
  const due = db.prepare(
    `SELECT d.rowid AS dueRowid, ${columns} ${from.replace('deliveries d', 'deliveries d INDEXED BY deliveries_due')}
     WHERE d.status = 'pending' AND d.next_attempt_at <= @now AND (d.next_attempt_at, d.rowid) > (@at, @rowid)
       AND (d.next_attempt_at, d.rowid) <= (@untilAt, @untilRowid) AND (d.lease_until IS NULL OR d.lease_until <= @now)
     ORDER BY d.next_attempt_at, d.rowid LIMIT @limit`,
  );
  const lease = db.prepare(
    "UPDATE deliveries SET lease_until = ? WHERE id = ? AND status = 'pending' AND attempts = ? AND (lease_until IS NULL OR lease_until <= ?)",
  );
  const END = { at: Number.MAX_SAFE_INTEGER, rowid: Number.MAX_SAFE_INTEGER };
  return {
    dueAfter: (cursor: DueCursor, now: number, limit: number, until: DueCursor = END): Array<DueRow<T>> =>
      (
        due.all({ now, at: cursor.at, rowid: cursor.rowid, untilAt: until.at, untilRowid: until.rowid, limit }) as Array<{
          dueRowid: number;
          nextAttemptAt: number;
        }>
      ).map((row) => ({ cursor: { at: row.nextAttemptAt, rowid: row.dueRowid }, delivery: fromRow(row as never) })),
    claimDue: (candidates: readonly ClaimCandidate[], now: number, leaseUntil: number): Set<string> => {
      const won = new Set<string>();
      for (const { id, attempts } of candidates) if (lease.run(leaseUntil, id, attempts, now).changes === 1) won.add(id);
      return won;
    },
  };
}
