// What `sandbox trigger` needs beyond the other repositories: a mark in the event log, so it can
// tell which events its own work recorded.
import type { Db } from './open-database.js';
import type { EventRecord } from './events-repo.js';

type Row = Omit<EventRecord, 'data'> & { data: string };

/** Prepared statements over the events table, for triggers. */
export function createTriggersRepo(db: Db) {
  const lastRowid = db.prepare('SELECT COALESCE(MAX(rowid), 0) FROM events').pluck();
  const since = db.prepare(
    'SELECT id, merchant_id AS merchantId, type, resource_id AS resourceId, data, created_at AS createdAt FROM events WHERE rowid > ? ORDER BY rowid',
  );

  return {
    /** The position of the newest event; pass it to eventsSince. */
    eventMark: () => lastRowid.get() as number,
    /** Events recorded after `mark`, oldest first. */
    eventsSince: (mark: number): EventRecord[] => (since.all(mark) as Row[]).map((row) => ({ ...row, data: JSON.parse(row.data) })),
  };
}
