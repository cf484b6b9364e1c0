// What `sandbox trigger` needs beyond the other repositories: a mark in the event log (so it can
// tell which events its own work recorded) and a way to make a pending timed job due now.
import type { Db } from './open-database.js';
import type { EventRecord } from './events-repo.js';

type Row = Omit<EventRecord, 'data'> & { data: string };

/** Prepared statements over the events and jobs tables, for triggers. */
export function createTriggersRepo(db: Db) {
  const lastRowid = db.prepare('SELECT COALESCE(MAX(rowid), 0) FROM events').pluck();
  const since = db.prepare('SELECT id, merchant_id AS merchantId, type, resource_id AS resourceId, data, created_at AS createdAt FROM events WHERE rowid > ? ORDER BY rowid');
  const expedite = db.prepare('UPDATE jobs SET due_at = ? WHERE kind = ? AND subject_id = ? AND done = 0 AND due_at > ?');

  return {
    /** The position of the newest event; pass it to eventsSince. */
    eventMark: () => lastRowid.get() as number,
    /** Events recorded after `mark`, oldest first. */
    eventsSince: (mark: number): EventRecord[] => (since.all(mark) as Row[]).map((row) => ({ ...row, data: JSON.parse(row.data) })),
    /** Makes the pending jobs of one kind and subject due at `now`; returns how many moved. */
    expediteJobs: (kind: string, subjectId: string, now: number) => expedite.run(now, kind, subjectId, now).changes,
  };
}

/** The triggers repository. */
export type TriggersRepo = ReturnType<typeof createTriggersRepo>;
