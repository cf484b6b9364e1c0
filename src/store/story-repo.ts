// What a payment's timeline reads besides the request journal: every row that belongs to one
// payment (its challenges, checkout sessions, refunds, chargebacks, events, deliveries and their
// attempts, jobs, the settlement that included it), each by the id it hangs on. Read-only.
import type { Db } from './open-database.js';

/** A challenge of the payment: its page's token, kind and how it ended. */
export interface StoryChallenge {
  token: string;
  kind: string;
  state: string;
  createdAt: number;
  completedAt: number | null;
}

/** A checkout session that made the payment (or tried to). */
export interface StorySession {
  id: string;
  token: string;
  status: string;
  paymentId: string | null;
  lastPaymentId: string | null;
  createdAt: number;
  completedAt: number | null;
}

/** A refund (of either family). */
export interface StoryRefund {
  id: string;
  amount: number;
  currency: string;
  status: string;
  failureReason: string | null;
  createdAt: number;
  /** When it succeeded or failed (null while pending). */
  finishedAt: number | null;
}

/** A chargeback on the payment. */
export interface StoryChargeback {
  id: string;
  amount: number;
  currency: string;
  reason: string;
  status: string;
  createdAt: number;
  updatedAt: number;
}

/** An event about the payment or one of its objects. */
export interface StoryEvent {
  id: string;
  type: string;
  resourceId: string;
  data: Record<string, unknown>;
  createdAt: number;
  /** The request that made it (its journal id); null for a timed job's; '' for a request's not named (its cause is read from the times). */
  requestId: string | null;
}

/** A delivery of one of those events, with its attempts. */
export interface StoryDelivery {
  id: string;
  eventId: string;
  url: string;
  status: string;
  manual: boolean;
  createdAt: number;
}

/** A timed job about the payment or one of its objects. */
export interface StoryJob {
  kind: string;
  subjectId: string;
  dueAt: number;
  done: boolean;
}

/** The settlement that included the payment, or paid back one of its refunds or chargebacks. */
export interface StorySettlement {
  id: string;
  how: 'item' | 'refund' | 'chargeback';
  amount: number;
  currency: string;
  status: string;
  createdAt: number;
  paidAt: number | null;
}

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** Prepared statements of the timeline's reads. */
export function createStoryRepo(db: Db) {
  const challenges = db.prepare(
    'SELECT token, kind, state, created_at AS createdAt, completed_at AS completedAt FROM challenges WHERE subject_id = ? ORDER BY created_at',
  );
  const sessionsOf = db.prepare(
    `SELECT id, token, status, payment_id AS paymentId, last_payment_id AS lastPaymentId, created_at AS createdAt, completed_at AS completedAt
     FROM checkout_sessions WHERE payment_id = ? OR last_payment_id = ? ORDER BY created_at`,
  );
  const refundsV1 = db.prepare(
    `SELECT id, amount, currency, status, failure_reason AS failureReason, created_at AS createdAt,
       CASE WHEN status = 'pending' THEN NULL ELSE updated_at END AS finishedAt FROM refunds_v1 WHERE payment_id = ? ORDER BY created_at`,
  );
  const refundsS2s = db.prepare(
    `SELECT id, amount, currency, status, failure_reason AS failureReason, created_at AS createdAt, completed_at AS finishedAt
     FROM s2s_refunds WHERE trans_id = ? ORDER BY created_at`,
  );
  const chargebacks = db.prepare(
    `SELECT id, amount, currency, reason, status, created_at AS createdAt, updated_at AS updatedAt
     FROM chargebacks WHERE subject_id = ? ORDER BY created_at`,
  );
  const settlements = db.prepare(
    `SELECT s.id, 'item' AS how, i.gross AS amount, s.currency, s.status, s.created_at AS createdAt, s.paid_at AS paidAt
       FROM settlement_items i JOIN settlements s ON s.id = i.settlement_id WHERE i.subject_id = ?
     UNION ALL
     SELECT s.id, a.kind AS how, a.amount, s.currency, s.status, s.created_at AS createdAt, s.paid_at AS paidAt
       FROM settlement_adjustments a JOIN settlements s ON s.id = a.settlement_id WHERE a.subject_id = ?
     ORDER BY createdAt`,
  );
  const refundOwner = db
    .prepare('SELECT payment_id FROM refunds_v1 WHERE id = ? UNION ALL SELECT trans_id FROM s2s_refunds WHERE id = ?')
    .pluck();
  const chargebackOwner = db.prepare('SELECT subject_id FROM chargebacks WHERE id = ?').pluck();
  const challengeOwner = db.prepare('SELECT subject_id FROM challenges WHERE token = ?').pluck();
  const sessionOwner = db.prepare('SELECT COALESCE(payment_id, last_payment_id) FROM checkout_sessions WHERE id = ? OR token = ?').pluck();
  const statusOwner = db.prepare('SELECT trans_id FROM transactions WHERE status_token = ?').pluck();

  return {
    challenges: (subjectId: string) => challenges.all(subjectId) as StoryChallenge[],
    sessions: (paymentId: string) => sessionsOf.all(paymentId, paymentId) as StorySession[],
    refunds: (paymentId: string) => [...refundsV1.all(paymentId), ...refundsS2s.all(paymentId)] as StoryRefund[],
    chargebacks: (subjectId: string) => chargebacks.all(subjectId) as StoryChargeback[],
    settlements: (subjectId: string) => settlements.all(subjectId, subjectId) as StorySettlement[],
    /** The payment (transID or pay_ id) a refund, chargeback, challenge token, session id or token, or S2S status token belongs to. */
    ownerOf(id: string): string | undefined {
      return (refundOwner.get(id, id) ??
        chargebackOwner.get(id) ??
        challengeOwner.get(id) ??
        sessionOwner.get(id, id) ??
        statusOwner.get(id)) as string | undefined;
    },
    events(resourceIds: readonly string[]): StoryEvent[] {
      if (resourceIds.length === 0) return [];
      const rows = db
        .prepare(
          `SELECT id, type, resource_id AS resourceId, data, created_at AS createdAt, request_id AS requestId FROM events
           WHERE resource_id IN (${placeholders(resourceIds.length)}) ORDER BY created_at, rowid`,
        )
        .all(...resourceIds) as Array<Omit<StoryEvent, 'data'> & { data: string }>;
      return rows.map((row) => ({ ...row, data: JSON.parse(row.data) as Record<string, unknown> }));
    },
    deliveries(eventIds: readonly string[]): StoryDelivery[] {
      if (eventIds.length === 0) return [];
      const rows = db
        .prepare(
          `SELECT id, event_id AS eventId, url, status, manual, created_at AS createdAt FROM deliveries
           WHERE event_id IN (${placeholders(eventIds.length)}) ORDER BY created_at, rowid`,
        )
        .all(...eventIds) as Array<Omit<StoryDelivery, 'manual'> & { manual: number }>;
      return rows.map((row) => ({ ...row, manual: row.manual === 1 }));
    },
    jobs(subjectIds: readonly string[]): StoryJob[] {
      if (subjectIds.length === 0) return [];
      const rows = db
        .prepare(
          `SELECT kind, subject_id AS subjectId, due_at AS dueAt, done FROM jobs WHERE subject_id IN (${placeholders(subjectIds.length)}) ORDER BY due_at, id`,
        )
        .all(...subjectIds) as Array<Omit<StoryJob, 'done'> & { done: number }>;
      return rows.map((row) => ({ ...row, done: row.done === 1 }));
    },
  };
}
