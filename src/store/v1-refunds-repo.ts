// /v1/ refunds of bearer-API payments. A pending row reserves its amount until it fails.
import type { Db } from './open-database.js';
import type { RefundStatus } from '../domain/vocabularies.js';

/** A stored /v1/ refund. */
export interface V1Refund {
  id: string;
  merchantId: string;
  paymentId: string;
  amount: number;
  currency: string;
  reason: string | null;
  status: RefundStatus;
  failureReason: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Filters of GET /v1/refunds. */
export interface V1RefundFilter {
  merchantId: string;
  paymentId?: string;
  /** Keyset pagination: only refunds older than this row (the cursor of starting_after). */
  startingAfter?: { createdAt: number; id: string };
  limit: number;
}

const COLUMNS = `id, merchant_id AS merchantId, payment_id AS paymentId, amount, currency, reason, status,
  failure_reason AS failureReason, created_at AS createdAt, updated_at AS updatedAt`;

/** Prepared statements over the refunds_v1 table. */
export function createV1RefundsRepo(db: Db) {
  const insert = db.prepare(`INSERT INTO refunds_v1 (id, merchant_id, payment_id, amount, currency, reason, status, failure_reason,
    created_at, updated_at) VALUES (@id, @merchantId, @paymentId, @amount, @currency, @reason, @status, @failureReason, @createdAt, @updatedAt)`);
  const byId = db.prepare(`SELECT ${COLUMNS} FROM refunds_v1 WHERE id = ?`);
  const byIdForMerchant = db.prepare(`SELECT ${COLUMNS} FROM refunds_v1 WHERE id = ? AND merchant_id = ?`);
  const held = db.prepare("SELECT COALESCE(SUM(amount), 0) FROM refunds_v1 WHERE payment_id = ? AND status = 'pending'").pluck();
  const finish = db.prepare("UPDATE refunds_v1 SET status = ?, failure_reason = ?, updated_at = ? WHERE id = ? AND status = 'pending'");

  return {
    insert: (r: V1Refund) => insert.run(r),
    get: (id: string) => byId.get(id) as V1Refund | undefined,
    /** The refund only when `merchantId` owns it; another merchant's id reads as missing. */
    getForMerchant: (id: string, merchantId: string) => byIdForMerchant.get(id, merchantId) as V1Refund | undefined,
    /** Minor units reserved by refunds of the payment that are still pending. */
    pendingAmount: (paymentId: string) => held.get(paymentId) as number,
    /** Ends a pending refund; false when it was no longer pending. */
    finish: (id: string, status: Exclude<RefundStatus, 'pending'>, failureReason: string | null, now: number) =>
      finish.run(status, failureReason, now, id).changes === 1,
    list(filter: V1RefundFilter): V1Refund[] {
      const where = ['merchant_id = ?'];
      const args: unknown[] = [filter.merchantId];
      if (filter.paymentId) {
        where.push('payment_id = ?');
        args.push(filter.paymentId);
      }
      if (filter.startingAfter) {
        where.push('(created_at, id) < (?, ?)');
        args.push(filter.startingAfter.createdAt, filter.startingAfter.id);
      }
      const sql = `SELECT ${COLUMNS} FROM refunds_v1 WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?`;
      return db.prepare(sql).all(...args, filter.limit) as V1Refund[];
    },
  };
}
