// Timed jobs: work that must happen at a later sandbox-clock time (a challenge expiring, a
// refund completing, a chargeback opening). Durable, so a restart does not forget them.
import type { Db } from './open-database.js';

/** A job due at `dueAt`; `kind` (one of services/job-kinds.ts) selects the handler the JobRunner registered. */
export interface Job {
  id: number;
  kind: string;
  subjectId: string;
  dueAt: number;
  payload: Record<string, unknown>;
}

/** Prepared statements over the jobs table; only the JobRunner writes through them, so its timer knows. */
export function createJobsRepo(db: Db) {
  const insert = db.prepare('INSERT INTO jobs (kind, subject_id, due_at, payload) VALUES (?, ?, ?, ?)');
  const due = db.prepare(
    'SELECT id, kind, subject_id AS subjectId, due_at AS dueAt, payload FROM jobs WHERE done = 0 AND due_at <= ? ORDER BY due_at, id LIMIT ?',
  );
  const markDone = db.prepare('UPDATE jobs SET done = 1 WHERE id = ? AND done = 0');
  const nextDue = db.prepare('SELECT MIN(due_at) FROM jobs WHERE done = 0').pluck();
  // done = 0 matches the partial index jobs_pending_subject (migration 012), so it is used.
  const cancel = db.prepare('UPDATE jobs SET done = 1 WHERE kind = ? AND subject_id = ? AND done = 0');
  const expedite = db.prepare('UPDATE jobs SET due_at = ? WHERE kind = ? AND subject_id = ? AND done = 0 AND due_at > ?');

  return {
    schedule: (kind: string, subjectId: string, dueAt: number, payload: Record<string, unknown> = {}) =>
      Number(insert.run(kind, subjectId, dueAt, JSON.stringify(payload)).lastInsertRowid),
    due: (now: number, limit = 100): Job[] =>
      (due.all(now, limit) as Array<Omit<Job, 'payload'> & { payload: string }>).map((j) => ({ ...j, payload: JSON.parse(j.payload) })),
    /** Claims a job; false when another pass already ran it. */
    markDone: (id: number) => markDone.run(id).changes === 1,
    nextDueAt: () => nextDue.get() as number | null,
    cancel: (kind: string, subjectId: string) => cancel.run(kind, subjectId),
    /** Makes the pending jobs of one kind and subject due at `now`; returns how many moved. */
    expedite: (kind: string, subjectId: string, now: number) => expedite.run(now, kind, subjectId, now).changes,
  };
}
