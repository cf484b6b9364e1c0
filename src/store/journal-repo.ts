// The request journal's rows (request_journal) and the traces requests started (object_traces).
// Rows are written masked (services/journal/journal.ts masks them); this file only stores and reads.
import type { JOURNAL_SURFACES } from '../domain/vocabularies.js';
import type { Db } from './open-database.js';

/** Where a request went: the merchant's API (/api, /v1), a customer page, or the control plane (/_sandbox). */
export type JournalSurface = (typeof JOURNAL_SURFACES)[number];

/** One request and its answer, as stored. */
export interface JournalRow {
  seq: number;
  id: string;
  merchantId: string | null;
  surface: JournalSurface;
  method: string;
  path: string;
  query: string;
  status: number;
  durationMs: number;
  /** Sandbox-clock ms when the request came in and when it was answered. */
  startedAt: number;
  endedAt: number;
  /** Wall-clock ms when the request came in. */
  wallAt: number;
  idempotencyKey: string | null;
  requestHeaders: Record<string, string>;
  requestBody: string | null;
  responseType: string | null;
  responseBody: string | null;
  /** The ids the request touched (objects, transIDs, page tokens). */
  ids: string[];
  traceparent: string | null;
  fault: string | null;
  /** What forced the outcome of a payment it made: an X-Sandbox-Outcome header or a scenario entry. */
  script: string | null;
}

/** A row to write (its seq is the table's). */
export type NewJournalRow = Omit<JournalRow, 'seq'>;

/** Filters of the journal list; every one given must hold. */
export interface JournalFilter {
  method?: string;
  /** The exact path, or a pattern where * matches any run of characters. */
  path?: string;
  /** An exact status, or a class such as 4 (for 4xx). */
  status?: { exact: number } | { class: number };
  merchantId?: string;
  /** Rows that touched any of these ids. */
  ids?: readonly string[];
  idempotencyKey?: string;
  /** Sandbox-clock ms: rows of requests that came in at or after it. */
  since?: number;
  /** Keyset pagination by seq: rows older than (before) or newer than (after) it. */
  before?: number;
  after?: number;
  /** Newest first (the lists) or oldest first (a timeline, a tail). */
  order: 'newest' | 'oldest';
  limit: number;
}

interface Row extends Omit<JournalRow, 'requestHeaders' | 'ids'> {
  requestHeaders: string;
  ids: string;
}

const COLUMNS = `seq, id, merchant_id AS merchantId, surface, method, path, query, status, duration_ms AS durationMs,
  started_at AS startedAt, ended_at AS endedAt, wall_at AS wallAt, idempotency_key AS idempotencyKey,
  request_headers AS requestHeaders, request_body AS requestBody, response_type AS responseType,
  response_body AS responseBody, ids, traceparent, fault, script`;

const fromRow = (row: Row): JournalRow => ({
  ...row,
  requestHeaders: JSON.parse(row.requestHeaders) as Record<string, string>,
  ids: row.ids.trim() === '' ? [] : row.ids.trim().split(' '),
});

/** A path pattern (* for any run of characters) as a LIKE pattern, % _ and \ escaped. */
const likePattern = (path: string) => path.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');

/** The trace a request's traceparent started, kept with an object it touched. */
export interface ObjectTrace {
  objectId: string;
  traceId: string;
  parentId: string;
  requestId: string;
  /** The trace flags and tracestate the request sent (null in rows kept before they were). */
  flags?: string | null;
  traceState?: string | null;
}

/** Prepared statements over request_journal and object_traces. */
export function createJournalRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO request_journal (id, merchant_id, surface, method, path, query, status, duration_ms, started_at, ended_at, wall_at,
      idempotency_key, request_headers, request_body, response_type, response_body, ids, traceparent, fault, script)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const dropUpTo = db.prepare('DELETE FROM request_journal WHERE seq <= ?');
  const dropOlder = db.prepare(
    'DELETE FROM request_journal WHERE seq IN (SELECT seq FROM request_journal WHERE wall_at < ? ORDER BY seq LIMIT 10000)',
  );
  // wall_at has no index (one more per row written): the delete scans the table, 2 ms for 10 000
  // rows, so the oldest row by arrival is read first and nothing is scanned while it is young.
  const oldestWall = db.prepare('SELECT wall_at FROM request_journal ORDER BY seq LIMIT 1').pluck();
  const seqOf = db.prepare('SELECT seq FROM request_journal WHERE id = ?').pluck();
  const byId = db.prepare(`SELECT ${COLUMNS} FROM request_journal WHERE id = ?`);
  const count = db.prepare('SELECT COUNT(*) FROM request_journal').pluck();
  const insertTrace = db.prepare(
    'INSERT OR IGNORE INTO object_traces (object_id, merchant_id, trace_id, parent_id, request_id, flags, trace_state) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const traceOf = db.prepare(
    `SELECT object_id AS objectId, trace_id AS traceId, parent_id AS parentId, request_id AS requestId, flags, trace_state AS traceState
     FROM object_traces WHERE object_id = ?`,
  );
  const anyTrace = db.prepare('SELECT 1 FROM object_traces LIMIT 1').pluck();

  return {
    /** Writes a row; returns its seq. */
    insert(r: NewJournalRow): number {
      return Number(
        insert.run(
          r.id,
          r.merchantId,
          r.surface,
          r.method,
          r.path,
          r.query,
          r.status,
          r.durationMs,
          r.startedAt,
          r.endedAt,
          r.wallAt,
          r.idempotencyKey,
          JSON.stringify(r.requestHeaders),
          r.requestBody,
          r.responseType,
          r.responseBody,
          r.ids.length === 0 ? ' ' : ` ${r.ids.join(' ')} `,
          r.traceparent,
          r.fault,
          r.script,
        ).lastInsertRowid,
      );
    },
    /** Deletes the rows up to and including seq `last` (the oldest); returns how many went. */
    dropUpTo: (last: number) => dropUpTo.run(last).changes,
    /**
     * Deletes rows of requests that came in before wall-clock ms `before`, once the oldest row by
     * arrival is one of them (rows written after the wall clock stepped back wait for it); returns how many went.
     */
    dropOlder: (before: number) => {
      const oldest = oldestWall.get() as number | undefined;
      return oldest === undefined || oldest >= before ? 0 : dropOlder.run(before).changes;
    },
    /** The seq of the row of request `id`, if it is still kept. */
    seqOf: (id: string) => seqOf.get(id) as number | undefined,
    /** The row of request `id`, if it is still kept. */
    get: (id: string) => {
      const row = byId.get(id) as Row | undefined;
      return row === undefined ? undefined : fromRow(row);
    },
    /** Rows kept now. */
    count: () => count.get() as number,
    list(filter: JournalFilter): JournalRow[] {
      const where: string[] = [];
      const args: unknown[] = [];
      const add = (clause: string, ...values: unknown[]) => {
        where.push(clause);
        args.push(...values);
      };
      if (filter.method) add('method = ?', filter.method);
      if (filter.path !== undefined) {
        if (filter.path.includes('*')) add("path LIKE ? ESCAPE '\\'", likePattern(filter.path));
        else add('path = ?', filter.path);
      }
      if (filter.status && 'exact' in filter.status) add('status = ?', filter.status.exact);
      if (filter.status && 'class' in filter.status) add('status / 100 = ?', filter.status.class);
      if (filter.merchantId) add('merchant_id = ?', filter.merchantId);
      if (filter.ids) add(`(${filter.ids.map(() => 'instr(ids, ?) > 0').join(' OR ') || '0'})`, ...filter.ids.map((id) => ` ${id} `));
      if (filter.idempotencyKey !== undefined) add('idempotency_key = ?', filter.idempotencyKey);
      if (filter.since !== undefined) add('started_at >= ?', filter.since);
      if (filter.before !== undefined) add('seq < ?', filter.before);
      if (filter.after !== undefined) add('seq > ?', filter.after);
      const order = filter.order === 'newest' ? 'DESC' : 'ASC';
      const sql = `SELECT ${COLUMNS} FROM request_journal ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq ${order} LIMIT ?`;
      return (db.prepare(sql).all(...args, filter.limit) as Row[]).map(fromRow);
    },
    /** Keeps the trace `trace` started for an object, unless the object has one already. */
    keepTrace: (merchantId: string | null, trace: ObjectTrace) =>
      insertTrace.run(
        trace.objectId,
        merchantId,
        trace.traceId,
        trace.parentId,
        trace.requestId,
        trace.flags ?? null,
        trace.traceState ?? null,
      ),
    /** The trace kept for an object. */
    trace: (objectId: string) => traceOf.get(objectId) as ObjectTrace | undefined,
    /** True when any object has a trace (else a delivery need not look one up). */
    anyTrace: () => anyTrace.get() !== undefined,
  };
}
