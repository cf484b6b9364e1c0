// Idempotency-Key answers to replay. A row is written once, when the first request's answer is
// known, in the same group-commit batch as the writes that answer reports; a key whose first
// request is still running is held in memory by the idempotency service, not here.
import type { Db } from './open-database.js';

/** A key and the answer its first request got. */
export interface IdempotencyRecord {
  scope: string;
  key: string;
  fingerprint: string;
  method: string;
  path: string;
  responseStatus: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
  createdAt: number;
}

const COLUMNS = `scope, key, fingerprint, method, path, response_status AS responseStatus, response_headers AS responseHeaders,
  response_body AS responseBody, created_at AS createdAt`;

type Row = Omit<IdempotencyRecord, 'responseHeaders'> & { responseHeaders: string };
const fromRow = (row: Row | undefined): IdempotencyRecord | undefined =>
  row ? { ...row, responseHeaders: JSON.parse(row.responseHeaders) } : undefined;

/** Prepared statements over idempotency_keys. */
export function createIdempotencyRepo(db: Db) {
  // Rows written before answers were stored in one go may still say in_progress: never replay those.
  const byKey = db.prepare(`SELECT ${COLUMNS} FROM idempotency_keys WHERE scope = ? AND key = ? AND state = 'done'`);
  // A row still here past the window (purging is amortised, see the service) is replaced.
  const save =
    db.prepare(`INSERT INTO idempotency_keys (scope, key, fingerprint, method, path, state, response_status, response_headers, response_body, created_at)
    VALUES (@scope, @key, @fingerprint, @method, @path, 'done', @responseStatus, @responseHeaders, @responseBody, @createdAt)
    ON CONFLICT(scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, method = excluded.method, path = excluded.path, state = 'done',
      response_status = excluded.response_status, response_headers = excluded.response_headers, response_body = excluded.response_body,
      created_at = excluded.created_at`);
  const removeAllInProgress = db.prepare("DELETE FROM idempotency_keys WHERE state = 'in_progress'");
  const purge = db.prepare('DELETE FROM idempotency_keys WHERE created_at <= ?');

  return {
    /** The stored answer of a key (one primary-key read), whatever its age. */
    get: (scope: string, key: string) => fromRow(byKey.get(scope, key) as Row | undefined),
    /** Stores the answer to replay, replacing an expired row of the same key. */
    save: (record: IdempotencyRecord) => save.run({ ...record, responseHeaders: JSON.stringify(record.responseHeaders) }),
    /** Voids reservations that databases written by earlier versions may hold. */
    releaseAllInProgress: () => removeAllInProgress.run().changes,
    /** Deletes every key created at or before `cutoff`. */
    purge: (cutoff: number) => purge.run(cutoff).changes,
  };
}
