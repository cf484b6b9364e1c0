// Settlements: batches of captured payments paid out to a merchant, the items (payments) each
// carries, and the clawbacks (adjustments) each takes back. Also finds the payments of both
// families that no settlement carries yet, and what happened to settled ones since.
import type { Db } from './open-database.js';
import type { AdjustmentKind, PaymentFamily, SettlementStatus } from '../domain/vocabularies.js';

/** A stored settlement. Money in minor units of `currency`, times in sandbox-clock milliseconds. */
export interface Settlement {
  id: string;
  merchantId: string;
  currency: string;
  gross: number;
  fees: number;
  refunds: number;
  /** The clawbacks it takes back (<= 0): refunds and lost chargebacks after an earlier payout. */
  adjustments: number;
  net: number;
  /** Payments carried; 0 when it holds clawbacks only. */
  count: number;
  status: SettlementStatus;
  /** When the payout is due (settlement.paid). */
  payAt: number;
  paidAt: number | null;
  createdAt: number;
}

/** One payment in a settlement: what was captured, the fee on it, and what was refunded of it. */
export interface SettlementItem {
  settlementId: string;
  subjectType: PaymentFamily;
  subjectId: string;
  gross: number;
  fee: number;
  refunded: number;
}

/** One clawback in a settlement, on a payment an earlier settlement paid out. `amount` < 0. */
export interface SettlementAdjustment {
  settlementId: string;
  subjectType: PaymentFamily;
  subjectId: string;
  kind: AdjustmentKind;
  /** The lost chargeback (kind chargeback); null for refunds. */
  chargebackId: string | null;
  amount: number;
}

/** A clawback owed by a settled payment, with the merchant and currency it is settled in. */
export type OwedAdjustment = Omit<SettlementAdjustment, 'settlementId'> & { merchantId: string; currency: string };

/** A payment no settlement carries yet, as the batching needs it. */
export interface Unsettled {
  subjectType: PaymentFamily;
  subjectId: string;
  merchantId: string;
  currency: string;
  gross: number;
  refunded: number;
  createdAt: number;
}

/** Which payments to batch: the statuses that count as settleable, and optional narrowing. */
export interface UnsettledFilter {
  v1Statuses: readonly string[];
  s2sCodes: readonly number[];
  merchantId?: string;
  currency?: string;
}

/** Filters of the settlement list. */
export interface SettlementFilter {
  merchantId?: string;
  status?: SettlementStatus;
  limit: number;
}

const COLUMNS = `id, merchant_id AS merchantId, currency, gross, fees, refunds, adjustments, net, count, status, pay_at AS payAt,
  paid_at AS paidAt, created_at AS createdAt`;
const ADJUSTMENT_COLUMNS =
  'settlement_id AS settlementId, subject_type AS subjectType, subject_id AS subjectId, kind, chargeback_id AS chargebackId, amount';
const ITEM_COLUMNS = 'settlement_id AS settlementId, subject_type AS subjectType, subject_id AS subjectId, gross, fee, refunded';
const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** Payments of both families in a settleable status that no settlement carries, oldest first. */
function readUnsettled(db: Db, filter: UnsettledFilter): Unsettled[] {
  const v1Where = [`p.status IN (${marks(filter.v1Statuses.length)})`];
  const s2sWhere = [`t.order_status IN (${marks(filter.s2sCodes.length)})`];
  const v1Args: unknown[] = [...filter.v1Statuses];
  const s2sArgs: unknown[] = [...filter.s2sCodes];
  if (filter.merchantId) {
    v1Where.push('p.merchant_id = ?');
    s2sWhere.push('t.merchant_id = ?');
    v1Args.push(filter.merchantId);
    s2sArgs.push(filter.merchantId);
  }
  if (filter.currency) {
    v1Where.push('p.currency = ?');
    s2sWhere.push('t.currency = ?');
    v1Args.push(filter.currency);
    s2sArgs.push(filter.currency);
  }
  const sql = `
    SELECT 'v1' AS subjectType, p.id AS subjectId, p.merchant_id AS merchantId, p.currency, p.amount_captured AS gross,
      p.amount_refunded AS refunded, p.created_at AS createdAt
    FROM payments p WHERE ${v1Where.join(' AND ')}
      AND NOT EXISTS (SELECT 1 FROM settlement_items i WHERE i.subject_type = 'v1' AND i.subject_id = p.id)
    UNION ALL
    SELECT 's2s', t.trans_id, t.merchant_id, t.currency, t.amount, t.refunded, t.created_at
    FROM transactions t WHERE ${s2sWhere.join(' AND ')}
      AND NOT EXISTS (SELECT 1 FROM settlement_items i WHERE i.subject_type = 's2s' AND i.subject_id = t.trans_id)
    ORDER BY createdAt, subjectId`;
  return db.prepare(sql).all(...v1Args, ...s2sArgs) as Unsettled[];
}

/**
 * Clawbacks owed by payments an earlier settlement carries: the part of their refunds that
 * succeeded after it (beyond what it and earlier clawbacks deducted), and each chargeback lost
 * since that no clawback took yet. Grouped later by the settled payment's merchant and currency.
 */
function readOwedAdjustments(db: Db, filter: { merchantId?: string; currency?: string }): OwedAdjustment[] {
  const where: string[] = [];
  const args: unknown[] = [];
  if (filter.merchantId) {
    where.push('s.merchant_id = ?');
    args.push(filter.merchantId);
  }
  if (filter.currency) {
    where.push('s.currency = ?');
    args.push(filter.currency);
  }
  // The settlement that carried the payment decides the merchant and currency owed.
  const and = where.map((condition) => ` AND ${condition}`).join('');
  const only = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const sql = `
    SELECT * FROM (
      SELECT i.subject_type AS subjectType, i.subject_id AS subjectId, 'refund' AS kind, NULL AS chargebackId,
        s.merchant_id AS merchantId, s.currency,
        -(COALESCE(p.amount_refunded, t.refunded, 0) - i.refunded
          + COALESCE((SELECT SUM(a.amount) FROM settlement_adjustments a
              WHERE a.subject_type = i.subject_type AND a.subject_id = i.subject_id AND a.kind = 'refund'), 0)) AS amount
      FROM settlement_items i JOIN settlements s ON s.id = i.settlement_id
        LEFT JOIN payments p ON i.subject_type = 'v1' AND p.id = i.subject_id
        LEFT JOIN transactions t ON i.subject_type = 's2s' AND t.trans_id = i.subject_id
      ${only}
    ) WHERE amount < 0
    UNION ALL
    SELECT c.subject_type, c.subject_id, 'chargeback', c.id, s.merchant_id, s.currency, -c.amount
    FROM chargebacks c
      JOIN settlement_items i ON i.subject_type = c.subject_type AND i.subject_id = c.subject_id
      JOIN settlements s ON s.id = i.settlement_id
    WHERE c.status = 'lost' AND NOT EXISTS (SELECT 1 FROM settlement_adjustments a WHERE a.chargeback_id = c.id)${and}
    ORDER BY subjectType, subjectId, kind`;
  return db.prepare(sql).all(...args, ...args) as OwedAdjustment[];
}

/** One page of settlements, newest first. */
function listSettlements(db: Db, filter: SettlementFilter): Settlement[] {
  const where: string[] = [];
  const args: unknown[] = [];
  if (filter.merchantId) {
    where.push('merchant_id = ?');
    args.push(filter.merchantId);
  }
  if (filter.status) {
    where.push('status = ?');
    args.push(filter.status);
  }
  const sql = `SELECT ${COLUMNS} FROM settlements ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, rowid DESC LIMIT ?`;
  return db.prepare(sql).all(...args, filter.limit) as Settlement[];
}

/** Prepared statements over the settlements and settlement_items tables. */
export function createSettlementsRepo(db: Db) {
  const insert =
    db.prepare(`INSERT INTO settlements (id, merchant_id, currency, gross, fees, refunds, adjustments, net, count, status, pay_at,
    paid_at, created_at) VALUES (@id, @merchantId, @currency, @gross, @fees, @refunds, @adjustments, @net, @count, @status, @payAt, @paidAt,
    @createdAt)`);
  const insertAdjustment =
    db.prepare(`INSERT INTO settlement_adjustments (settlement_id, subject_type, subject_id, kind, chargeback_id, amount)
    VALUES (@settlementId, @subjectType, @subjectId, @kind, @chargebackId, @amount)`);
  const adjustmentsOf = db.prepare(`SELECT ${ADJUSTMENT_COLUMNS} FROM settlement_adjustments WHERE settlement_id = ? ORDER BY rowid`);
  const insertItem = db.prepare(`INSERT INTO settlement_items (settlement_id, subject_type, subject_id, gross, fee, refunded)
    VALUES (@settlementId, @subjectType, @subjectId, @gross, @fee, @refunded)`);
  const byId = db.prepare(`SELECT ${COLUMNS} FROM settlements WHERE id = ?`);
  const itemsOf = db.prepare(`SELECT ${ITEM_COLUMNS} FROM settlement_items WHERE settlement_id = ? ORDER BY rowid`);
  const itemOf = db.prepare(`SELECT ${ITEM_COLUMNS} FROM settlement_items WHERE subject_type = ? AND subject_id = ?`);
  const markPaid = db.prepare("UPDATE settlements SET status = 'paid', paid_at = ? WHERE id = ? AND status = 'created'");

  return {
    insert: (s: Settlement) => insert.run(s),
    insertItem: (item: SettlementItem) => insertItem.run(item),
    insertAdjustment: (adjustment: SettlementAdjustment) => insertAdjustment.run(adjustment),
    /** The clawbacks a settlement takes back. */
    adjustments: (settlementId: string) => adjustmentsOf.all(settlementId) as SettlementAdjustment[],
    get: (id: string) => byId.get(id) as Settlement | undefined,
    items: (settlementId: string) => itemsOf.all(settlementId) as SettlementItem[],
    /** The item that settled a payment, if one did. */
    itemFor: (subjectType: PaymentFamily, subjectId: string) => itemOf.get(subjectType, subjectId) as SettlementItem | undefined,
    /** Marks a created settlement paid; false when it already was. */
    markPaid: (id: string, now: number) => markPaid.run(now, id).changes === 1,
    /** Payments of both families in a settleable status that no settlement carries, oldest first. */
    unsettled: (filter: UnsettledFilter) => readUnsettled(db, filter),
    /** Clawbacks owed by payments an earlier settlement carries (readOwedAdjustments). */
    owedAdjustments: (filter: { merchantId?: string; currency?: string }) => readOwedAdjustments(db, filter),
    /** Newest first. */
    list: (filter: SettlementFilter) => listSettlements(db, filter),
  };
}
