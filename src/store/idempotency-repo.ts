// Idempotency-Key reservations and the answers they replay. A row is reserved (in_progress)
// before the handler runs, so a concurrent request with the same key finds it and waits.
import type { Db } from './open-database.js';

/** A reserved or finished key. */
export interface IdempotencyRecord {
  scope: string;
  key: string;
  fingerprint: string;
  method: string;
  path: string;
  state: 'in_progress' | 'done';
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  createdAt: number;
}

const COLUMNS = `scope, key, fingerprint, method, path, state, response_status AS responseStatus, response_headers AS responseHeaders,
  response_body AS responseBody, created_at AS createdAt`;

type Row = Omit<IdempotencyRecord, 'responseHeaders'> & { responseHeaders: string | null };
const fromRow = (row: Row | undefined): IdempotencyRecord | undefined =>
  row ? { ...row, responseHeaders: row.responseHeaders === null ? null : JSON.parse(row.responseHeaders) } : undefined;

/** Prepared statements over idempotency_keys. */
export function createIdempotencyRepo(db: Db) {
  const reserve = db.prepare(`INSERT INTO idempotency_keys (scope, key, fingerprint, method, path, state, created_at)
    VALUES (?, ?, ?, ?, ?, 'in_progress', ?) ON CONFLICT(scope, key) DO NOTHING`);
  const byKey = db.prepare(`SELECT ${COLUMNS} FROM idempotency_keys WHERE scope = ? AND key = ?`);
  const finish = db.prepare(`UPDATE idempotency_keys SET state = 'done', response_status = ?, response_headers = ?, response_body = ?
    WHERE scope = ? AND key = ? AND state = 'in_progress'`);
  const remove = db.prepare('DELETE FROM idempotency_keys WHERE scope = ? AND key = ?');
  const removeAllInProgress = db.prepare("DELETE FROM idempotency_keys WHERE state = 'in_progress'");
  const purge = db.prepare('DELETE FROM idempotency_keys WHERE created_at <= ?');

  return {
    /** Inserts an in_progress row; false when the key already has one. */
    reserve: (scope: string, key: string, fingerprint: string, method: string, path: string, now: number) =>
      reserve.run(scope, key, fingerprint, method, path, now).changes === 1,
    get: (scope: string, key: string) => fromRow(byKey.get(scope, key) as Row | undefined),
    /** Stores the answer to replay. */
    finish: (scope: string, key: string, status: number, headers: Record<string, string>, body: string) =>
      finish.run(status, JSON.stringify(headers), body, scope, key).changes === 1,
    /** Frees a key (the handler failed with a 5xx, so a retry must run again). */
    release: (scope: string, key: string) => remove.run(scope, key),
    /** Voids reservations left by a process that stopped mid-request. */
    releaseAllInProgress: () => removeAllInProgress.run().changes,
    /** Deletes every key created at or before `cutoff`. */
    purge: (cutoff: number) => purge.run(cutoff).changes,
  };
}

/** The idempotency repository. */
export type IdempotencyRepo = ReturnType<typeof createIdempotencyRepo>;
