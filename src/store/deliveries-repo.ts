// The webhook outbox (deliveries) and its attempt log. A delivery is one event going to one URL;
// the worker reads due rows after a cursor and leases them (delivery-claim.ts). Every write that
// makes a row due tells the worker where (createDeliveriesRepo's `onDue`), so a row due before its
// cursor (a retry after a clock advance, a requeue, a job's event stamped with its due time) is read again.
import type { Db } from './open-database.js';
import type { DeliveryStatus } from '../domain/vocabularies.js';
import { createDueClaim, DUE_START } from './delivery-claim.js';

/** A stored delivery. `manual` ones (replays) are tried once and never retried by themselves. */
export interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  merchantId: string;
  url: string;
  endpointId: string | null;
  contentType: string;
  body: string;
  status: DeliveryStatus;
  manual: boolean;
  attempts: number;
  nextAttemptAt: number | null;
  leaseUntil: number | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  /** Its event's trace (events.trace_parent, trace_state): each attempt carries a child traceparent of it. */
  traceParent: string | null;
  traceState: string | null;
}

/** One recorded POST of a delivery, with what came back. */
export interface DeliveryAttempt {
  id?: number;
  deliveryId: string;
  attempt: number;
  startedAt: number;
  requestHeaders: Record<string, string>;
  requestBody: string;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  latencyMs: number | null;
  /** refused | timeout | tls | dns | reset | redirect | http_status | invalid_url | injected */
  errorKind: string | null;
  errorMessage: string | null;
  /** The injected fault, when the attempt was shaped by one. */
  fault: string | null;
}

/** Filters of the delivery list. */
export interface DeliveryFilter {
  merchantId?: string;
  status?: DeliveryStatus;
  eventType?: string;
  eventId?: string;
  url?: string;
  since?: number;
  /** Keyset pagination: only deliveries listed after this one (older; the cursor of starting_after). */
  startingAfter?: { createdAt: number; id: string };
  limit: number;
}

const COLUMNS = `d.id, d.event_id AS eventId, e.type AS eventType, d.merchant_id AS merchantId, d.url, d.endpoint_id AS endpointId,
  d.content_type AS contentType, d.body, d.status, d.manual, d.attempts, d.next_attempt_at AS nextAttemptAt,
  d.lease_until AS leaseUntil, d.last_status AS lastStatus, d.last_error AS lastError, d.created_at AS createdAt, d.updated_at AS updatedAt,
  e.trace_parent AS traceParent, e.trace_state AS traceState`;
const FROM = 'FROM deliveries d JOIN events e ON e.id = d.event_id';

type Row = Omit<Delivery, 'manual'> & { manual: number };
/**
 * Told where a row fell due: its due time, when known its rowid (0: any row at that time), and the
 * URL it goes to when the write knows it (a retry, a new row): the worker's queues then read it back
 * for that receiver alone (queues.ts rewind).
 */
export type DueListener = (at: number, rowid: number, url?: string) => void;
function fromRow(row: Row): Delivery;
function fromRow(row: Row | undefined): Delivery | undefined;
function fromRow(row: Row | undefined): Delivery | undefined {
  return row ? { ...row, manual: row.manual === 1 } : undefined;
}

/** A delivery as the outbox queues it: due at nextAttemptAt, or already leased to the worker (leaseUntil). */
export type NewDelivery = Pick<
  Delivery,
  'id' | 'eventId' | 'merchantId' | 'url' | 'endpointId' | 'contentType' | 'body' | 'manual' | 'nextAttemptAt' | 'createdAt' | 'leaseUntil'
>;

/** What an attempt left a delivery with. */
export interface DeliveryFinish {
  id: string;
  /** Where it goes: a retry that falls due before the worker's cursor is read back for this receiver alone. */
  url: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  now: number;
}

/** The attempt log: every POST of a delivery with what came back. */
function createAttemptLog(db: Db) {
  const insertAttempt = db.prepare(`INSERT INTO delivery_attempts (delivery_id, attempt, started_at, request_headers, request_body,
    response_status, response_headers, response_body, latency_ms, error_kind, error_message, fault) VALUES (@deliveryId, @attempt,
    @startedAt, @requestHeaders, @requestBody, @responseStatus, @responseHeaders, @responseBody, @latencyMs, @errorKind, @errorMessage, @fault)`);
  const attemptsOf = db.prepare(`SELECT id, delivery_id AS deliveryId, attempt, started_at AS startedAt, request_headers AS requestHeaders,
    request_body AS requestBody, response_status AS responseStatus, response_headers AS responseHeaders, response_body AS responseBody,
    latency_ms AS latencyMs, error_kind AS errorKind, error_message AS errorMessage, fault FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt, id`);
  return {
    recordAttempt: (a: DeliveryAttempt) =>
      insertAttempt.run({
        ...a,
        requestHeaders: JSON.stringify(a.requestHeaders),
        responseHeaders: a.responseHeaders && JSON.stringify(a.responseHeaders),
      }),
    attempts: (deliveryId: string): DeliveryAttempt[] =>
      (attemptsOf.all(deliveryId) as Array<DeliveryAttempt & { requestHeaders: string; responseHeaders: string | null }>).map((a) => ({
        ...a,
        requestHeaders: JSON.parse(a.requestHeaders as unknown as string),
        responseHeaders: a.responseHeaders ? JSON.parse(a.responseHeaders as unknown as string) : null,
      })),
  };
}

/** One page of deliveries matching `filter`, newest first. */
function listDeliveries(db: Db, filter: DeliveryFilter): Delivery[] {
  const where: string[] = [];
  const args: unknown[] = [];
  if (filter.merchantId) {
    where.push('d.merchant_id = ?');
    args.push(filter.merchantId);
  }
  if (filter.status) {
    where.push('d.status = ?');
    args.push(filter.status);
  }
  if (filter.eventType) {
    where.push('e.type = ?');
    args.push(filter.eventType);
  }
  if (filter.eventId) {
    where.push('d.event_id = ?');
    args.push(filter.eventId);
  }
  if (filter.url) {
    where.push('d.url = ?');
    args.push(filter.url);
  }
  if (filter.since !== undefined) {
    where.push('d.created_at >= ?');
    args.push(filter.since);
  }
  if (filter.startingAfter) {
    where.push('(d.created_at, d.id) < (?, ?)');
    args.push(filter.startingAfter.createdAt, filter.startingAfter.id);
  }
  const sql = `SELECT ${COLUMNS} ${FROM} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY d.created_at DESC, d.id DESC LIMIT ?`;
  return (db.prepare(sql).all(...args, filter.limit) as Row[]).map((row) => fromRow(row));
}

/** The writes that move a delivery's due time, each telling `onDue` where the row fell due. */
function createDueWrites(db: Db, onDue: DueListener) {
  const finish =
    db.prepare(`UPDATE deliveries SET status = @status, attempts = @attempts, next_attempt_at = @nextAttemptAt, lease_until = NULL,
    last_status = @lastStatus, last_error = @lastError, updated_at = @now WHERE id = @id`);
  const releaseAll = db.prepare("UPDATE deliveries SET lease_until = NULL WHERE status = 'pending' AND lease_until IS NOT NULL");
  const reschedule = db.prepare("UPDATE deliveries SET next_attempt_at = ?, lease_until = NULL WHERE id = ? AND status = 'pending'");
  const requeue = db.prepare(
    "UPDATE deliveries SET status = 'pending', next_attempt_at = ?, lease_until = NULL, updated_at = ? WHERE id = ?",
  );
  const due = <T>(result: T, at: number | null, rowid = 0, url?: string): T => {
    if (at !== null) onDue(at, rowid, url);
    return result;
  };
  return {
    due,
    // better-sqlite3 refuses a named parameter the statement does not use: url is the listener's.
    finish: ({ url, ...f }: DeliveryFinish) => due(finish.run(f), f.status === 'pending' ? f.nextAttemptAt : null, 0, url),
    /** At start-up nothing is in flight, so any lease left by a crashed process is void. */
    releaseAllLeases: () => due(releaseAll.run().changes, DUE_START.at),
    /** Moves a pending delivery's next attempt without counting one (a fault holding it back). */
    reschedule: (id: string, at: number) => due(reschedule.run(at, id), at),
    /** Puts a finished delivery back in the queue (retry-failed). */
    requeue: (id: string, at: number) => due(requeue.run(at, at, id), at),
  };
}

/** Prepared statements over deliveries and delivery_attempts; `onDue` is told where a write made a row due (the delivery worker's queues). */
export function createDeliveriesRepo(db: Db, onDue: DueListener = () => {}) {
  const insert = db.prepare(`INSERT INTO deliveries (id, event_id, merchant_id, url, endpoint_id, content_type, body, status, manual,
    attempts, next_attempt_at, lease_until, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, 0, ?, ?, ?, ?)`);
  const byId = db.prepare(`SELECT ${COLUMNS} ${FROM} WHERE d.id = ?`);
  // ORDER BY ... LIMIT 1 walks deliveries_due from `after` and stops at the first unleased row.
  const nextDue = db
    .prepare(
      "SELECT next_attempt_at FROM deliveries INDEXED BY deliveries_due WHERE status = 'pending' AND next_attempt_at > ? AND lease_until IS NULL ORDER BY next_attempt_at LIMIT 1",
    )
    .pluck();
  const { due, ...dueWrites } = createDueWrites(db, onDue);
  return {
    /** Writes a new delivery; one leased at insert is the worker's already, so no reader is told it is due. */
    insert: (d: NewDelivery) => {
      const result = insert.run(
        d.id,
        d.eventId,
        d.merchantId,
        d.url,
        d.endpointId,
        d.contentType,
        d.body,
        d.manual ? 1 : 0,
        d.nextAttemptAt,
        d.leaseUntil,
        d.createdAt,
        d.createdAt,
      );
      return d.leaseUntil === null ? due(result, d.nextAttemptAt, Number(result.lastInsertRowid), d.url) : result;
    },
    get: (id: string) => fromRow(byId.get(id) as Row | undefined),
    /** Due rows after a cursor, and the lease of a batch of them (createDueClaim). */
    ...createDueClaim(db, COLUMNS, FROM, (row: Row) => fromRow(row)),
    /** The earliest due time after `after` of a pending unleased row, or null. */
    nextDueAt: (after = Number.MIN_SAFE_INTEGER) => (nextDue.get(after) as number | undefined) ?? null,
    ...dueWrites,
    ...createAttemptLog(db),
    list: (filter: DeliveryFilter) => listDeliveries(db, filter),
  };
}
