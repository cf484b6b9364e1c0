// The webhook outbox (deliveries) and its attempt log. A delivery is one event going to one URL;
// the worker leases due rows so two passes never send the same attempt twice.
import type { Db } from './open-database.js';
import type { Statement } from 'better-sqlite3';

/** pending: waiting for its next attempt; succeeded: a 2xx came back; failed: retries exhausted. */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

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
  d.lease_until AS leaseUntil, d.last_status AS lastStatus, d.last_error AS lastError, d.created_at AS createdAt, d.updated_at AS updatedAt`;
const FROM = 'FROM deliveries d JOIN events e ON e.id = d.event_id';
/** Due rows one query of a claim reads, at most: enough to reach a healthy receiver behind hundreds of a dead one's rows, few enough that a claim behind a busy receiver's backlog stays cheap. */
const SCAN_LIMIT = 512;

type Row = Omit<Delivery, 'manual'> & { manual: number };
const fromRow = (row: Row | undefined): Delivery | undefined => (row ? { ...row, manual: row.manual === 1 } : undefined);

/** Prepared statements over deliveries and delivery_attempts. */
export function createDeliveriesRepo(db: Db) {
  const insert = db.prepare(`INSERT INTO deliveries (id, event_id, merchant_id, url, endpoint_id, content_type, body, status, manual,
    attempts, next_attempt_at, created_at, updated_at) VALUES (@id, @eventId, @merchantId, @url, @endpointId, @contentType, @body,
    'pending', @manual, 0, @nextAttemptAt, @createdAt, @createdAt)`);
  const byId = db.prepare(`SELECT ${COLUMNS} ${FROM} WHERE d.id = ?`);
  // INDEXED BY: without statistics the planner picks deliveries_status_created (status = ?) and
  // sorts every pending row on each wake, which made a create cost O(backlog) while a receiver was down.
  // The due rows, leaving out the receivers (origins) already at their cap: SQLite skips a saturated
  // receiver's backlog in C, where a walk in JavaScript cost about 2 us a row on every claim (it
  // halved /v1/payments throughput behind a single busy receiver). One statement per number of
  // receivers left out; an origin that does not prefix its stored URLs is still skipped in the walk.
  const dueRowsExcept = new Map<number, Statement>();
  const dueRowsWithout = (count: number): Statement => {
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
  const lease = db.prepare(
    "UPDATE deliveries SET lease_until = ? WHERE id = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until <= ?)",
  );
  // ORDER BY ... LIMIT 1 walks deliveries_due from its start and stops at the first unleased row.
  const nextDue = db
    .prepare(
      "SELECT next_attempt_at FROM deliveries INDEXED BY deliveries_due WHERE status = 'pending' AND lease_until IS NULL ORDER BY next_attempt_at LIMIT 1",
    )
    .pluck();
  const finish =
    db.prepare(`UPDATE deliveries SET status = @status, attempts = @attempts, next_attempt_at = @nextAttemptAt, lease_until = NULL,
    last_status = @lastStatus, last_error = @lastError, updated_at = @now WHERE id = @id`);
  const releaseAll = db.prepare("UPDATE deliveries SET lease_until = NULL WHERE status = 'pending' AND lease_until IS NOT NULL");
  const release = db.prepare('UPDATE deliveries SET lease_until = NULL WHERE id = ?');
  const reschedule = db.prepare("UPDATE deliveries SET next_attempt_at = ?, lease_until = NULL WHERE id = ? AND status = 'pending'");
  const requeue = db.prepare(
    "UPDATE deliveries SET status = 'pending', next_attempt_at = ?, lease_until = NULL, updated_at = ? WHERE id = ?",
  );
  const insertAttempt = db.prepare(`INSERT INTO delivery_attempts (delivery_id, attempt, started_at, request_headers, request_body,
    response_status, response_headers, response_body, latency_ms, error_kind, error_message, fault) VALUES (@deliveryId, @attempt,
    @startedAt, @requestHeaders, @requestBody, @responseStatus, @responseHeaders, @responseBody, @latencyMs, @errorKind, @errorMessage, @fault)`);
  const attemptsOf = db.prepare(`SELECT id, delivery_id AS deliveryId, attempt, started_at AS startedAt, request_headers AS requestHeaders,
    request_body AS requestBody, response_status AS responseStatus, response_headers AS responseHeaders, response_body AS responseBody,
    latency_ms AS latencyMs, error_kind AS errorKind, error_message AS errorMessage, fault FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt, id`);

  return {
    insert: (d: {
      id: string;
      eventId: string;
      merchantId: string;
      url: string;
      endpointId: string | null;
      contentType: string;
      body: string;
      manual: boolean;
      nextAttemptAt: number;
      createdAt: number;
    }) => insert.run({ ...d, manual: d.manual ? 1 : 0 }),
    get: (id: string) => fromRow(byId.get(id) as Row | undefined),
    /**
     * Leases up to `limit` due deliveries until `leaseUntil`, at most `perReceiver` in flight to one
     * receiver (`receiverOf(url)`; `busy` counts the ones already in flight), so one slow or dead
     * receiver cannot hold every sending slot while other merchants' webhooks wait. Returns the ones
     * this call won.
     */
    claimDue(
      now: number,
      leaseUntil: number,
      limit: number,
      receiverOf: (url: string) => string = (url) => url,
      perReceiver = Infinity,
      busy: ReadonlyMap<string, number> = new Map(),
    ): Delivery[] {
      return db
        .transaction(() => {
          // Walk the due rows in order, skipping saturated receivers, until `limit` are picked: a dead
          // receiver's backlog sits ahead of newer rows for healthy ones, so a fixed-size window would
          // hide them. Each receiver that reaches its cap is left out of a fresh query (at most a few:
          // the cap is a quarter of the slots); SCAN_LIMIT bounds the rows read behind a huge backlog.
          const taken = new Map(busy);
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
          // Leased after the walk: the connection runs no other statement while iterating.
          return [...picked].filter((id) => lease.run(leaseUntil, id, now).changes === 1).map((id) => fromRow(byId.get(id) as Row)!);
          // IMMEDIATE: take the write lock before reading, so a checkpoint that reset the WAL makes
          // us wait (busy_timeout) instead of failing with a stale read snapshot (SQLITE_BUSY).
        })
        .immediate();
    },
    nextDueAt: () => (nextDue.get() as number | undefined) ?? null,
    finish: (f: {
      id: string;
      status: DeliveryStatus;
      attempts: number;
      nextAttemptAt: number | null;
      lastStatus: number | null;
      lastError: string | null;
      now: number;
    }) => finish.run(f),
    /** At start-up nothing is in flight, so any lease left by a crashed process is void. */
    releaseAllLeases: () => releaseAll.run().changes,
    release: (id: string) => release.run(id),
    /** Moves a pending delivery's next attempt without counting one (a fault holding it back). */
    reschedule: (id: string, at: number) => reschedule.run(at, id),
    /** Puts a finished delivery back in the queue (retry-failed). */
    requeue: (id: string, at: number) => requeue.run(at, at, id),
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
    list(filter: DeliveryFilter): Delivery[] {
      const where: string[] = [];
      const args: unknown[] = [];
      if (filter.merchantId) where.push('d.merchant_id = ?'), args.push(filter.merchantId);
      if (filter.status) where.push('d.status = ?'), args.push(filter.status);
      if (filter.eventType) where.push('e.type = ?'), args.push(filter.eventType);
      if (filter.eventId) where.push('d.event_id = ?'), args.push(filter.eventId);
      if (filter.url) where.push('d.url = ?'), args.push(filter.url);
      if (filter.since !== undefined) where.push('d.created_at >= ?'), args.push(filter.since);
      if (filter.startingAfter)
        where.push('(d.created_at, d.id) < (?, ?)'), args.push(filter.startingAfter.createdAt, filter.startingAfter.id);
      const sql = `SELECT ${COLUMNS} ${FROM} ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY d.created_at DESC, d.id DESC LIMIT ?`;
      return (db.prepare(sql).all(...args, filter.limit) as Row[]).map((row) => fromRow(row)!);
    },
  };
}
