// S2S refunds: one row per accepted refund request. A row that has not failed holds its amount,
// so "left to refund" is computed here and nowhere else.
import type { Db } from './open-database.js';
import type { RefundStatus } from '../domain/vocabularies.js';

/** A stored S2S refund. Money in minor units of the transaction's currency. */
export interface S2SRefund {
  id: string;
  transId: string;
  merchantId: string;
  amount: number;
  currency: string;
  status: RefundStatus;
  failureReason: string | null;
  createdAt: number;
  completedAt: number | null;
}

const COLUMNS = `id, trans_id AS transId, merchant_id AS merchantId, amount, currency, status, failure_reason AS failureReason,
  created_at AS createdAt, completed_at AS completedAt`;

/** Prepared statements over the s2s_refunds table. */
export function createS2SRefundsRepo(db: Db) {
  const insert = db.prepare(`INSERT INTO s2s_refunds (id, trans_id, merchant_id, amount, currency, status, failure_reason, created_at,
    completed_at) VALUES (@id, @transId, @merchantId, @amount, @currency, @status, @failureReason, @createdAt, @completedAt)`);
  const byId = db.prepare(`SELECT ${COLUMNS} FROM s2s_refunds WHERE id = ?`);
  const held = db.prepare("SELECT COALESCE(SUM(amount), 0) FROM s2s_refunds WHERE trans_id = ? AND status != 'failed'").pluck();
  const finish = db.prepare("UPDATE s2s_refunds SET status = ?, failure_reason = ?, completed_at = ? WHERE id = ? AND status = 'pending'");

  return {
    insert: (r: S2SRefund) => insert.run(r),
    get: (id: string) => byId.get(id) as S2SRefund | undefined,
    /** Minor units refunded or reserved (pending + succeeded) on a transaction. */
    heldAmount: (transId: string) => held.get(transId) as number,
    /** Moves a pending refund to its final status; false when it was no longer pending. */
    finish: (id: string, status: Exclude<RefundStatus, 'pending'>, failureReason: string | null, now: number) =>
      finish.run(status, failureReason, now, id).changes === 1,
  };
}
