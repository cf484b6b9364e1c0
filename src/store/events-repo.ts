// Events: every state change a merchant may hear about, S2S and /v1/ alike. Deliveries point here.
import type { Db } from './open-database.js';

/** A stored event; `data` is the object the event is about, as sent. */
export interface EventRecord {
  id: string;
  merchantId: string;
  type: string;
  resourceId: string;
  data: Record<string, unknown>;
  createdAt: number;
  /** The trace its webhooks descend from (a traceparent naming the parent span), and the caller's tracestate; null when none. */
  traceParent?: string | null;
  traceState?: string | null;
}

/** Filters of the event lists. */
export interface EventFilter {
  merchantId?: string;
  type?: string;
  resourceId?: string;
  since?: number;
  /** Only events created at or before this time. */
  until?: number;
  /** Keyset pagination: only events older than this one. */
  startingAfter?: { createdAt: number; id: string };
  limit: number;
}

type Row = Omit<EventRecord, 'data'> & { data: string };
const COLUMNS =
  'id, merchant_id AS merchantId, type, resource_id AS resourceId, data, created_at AS createdAt, trace_parent AS traceParent, trace_state AS traceState';
function fromRow(row: Row): EventRecord;
function fromRow(row: Row | undefined): EventRecord | undefined;
function fromRow(row: Row | undefined): EventRecord | undefined {
  return row ? { ...row, data: JSON.parse(row.data) } : undefined;
}

/** Prepared statements over the events table. */
export function createEventsRepo(db: Db) {
  const insert = db.prepare(
    'INSERT INTO events (id, merchant_id, type, resource_id, data, created_at, request_id, trace_parent, trace_state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const byId = db.prepare(`SELECT ${COLUMNS} FROM events WHERE id = ?`);

  return {
    /** Writes an event; `requestId` is the request that made it (the timeline's cause), null for a timed job's, '' for a request's not named (runtime/request-scope.ts). */
    insert: (e: EventRecord, requestId: string | null = null) =>
      insert.run(
        e.id,
        e.merchantId,
        e.type,
        e.resourceId,
        JSON.stringify(e.data),
        e.createdAt,
        requestId,
        e.traceParent ?? null,
        e.traceState ?? null,
      ),
    get: (id: string) => fromRow(byId.get(id) as Row | undefined),
    list(filter: EventFilter): EventRecord[] {
      const where: string[] = [];
      const args: unknown[] = [];
      if (filter.merchantId) {
        where.push('merchant_id = ?');
        args.push(filter.merchantId);
      }
      if (filter.type) {
        where.push('type = ?');
        args.push(filter.type);
      }
      if (filter.resourceId) {
        where.push('resource_id = ?');
        args.push(filter.resourceId);
      }
      if (filter.since !== undefined) {
        where.push('created_at >= ?');
        args.push(filter.since);
      }
      if (filter.until !== undefined) {
        where.push('created_at <= ?');
        args.push(filter.until);
      }
      if (filter.startingAfter) {
        where.push('(created_at, id) < (?, ?)');
        args.push(filter.startingAfter.createdAt, filter.startingAfter.id);
      }
      const sql = `SELECT ${COLUMNS} FROM events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT ?`;
      return (db.prepare(sql).all(...args, filter.limit) as Row[]).map((row) => fromRow(row));
    },
  };
}
