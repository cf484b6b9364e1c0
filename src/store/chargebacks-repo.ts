// Chargebacks: one row per dispute opened on an S2S transaction or a /v1/ payment.
import type { Db } from './open-database.js';
import type { ChargebackReason, ChargebackStatus, PaymentFamily } from '../domain/vocabularies.js';

/** A stored chargeback. Money in minor units, times in sandbox-clock milliseconds. */
export interface Chargeback {
  id: string;
  merchantId: string;
  subjectType: PaymentFamily;
  /** The transID (s2s) or payment id (v1). */
  subjectId: string;
  amount: number;
  currency: string;
  reason: ChargebackReason;
  status: ChargebackStatus;
  createdAt: number;
  updatedAt: number;
}

/** Filters of the chargeback list. */
export interface ChargebackFilter {
  merchantId?: string;
  status?: ChargebackStatus;
  subjectId?: string;
  limit: number;
}

const COLUMNS = `id, merchant_id AS merchantId, subject_type AS subjectType, subject_id AS subjectId, amount, currency, reason, status,
  created_at AS createdAt, updated_at AS updatedAt`;

/** Prepared statements over the chargebacks table. */
export function createChargebacksRepo(db: Db) {
  const insert =
    db.prepare(`INSERT INTO chargebacks (id, merchant_id, subject_type, subject_id, amount, currency, reason, status, created_at,
    updated_at) VALUES (@id, @merchantId, @subjectType, @subjectId, @amount, @currency, @reason, @status, @createdAt, @updatedAt)`);
  const byId = db.prepare(`SELECT ${COLUMNS} FROM chargebacks WHERE id = ?`);
  const openOf = db.prepare(
    `SELECT ${COLUMNS} FROM chargebacks WHERE subject_id = ? AND status = 'open' ORDER BY created_at DESC, rowid DESC LIMIT 1`,
  );
  const decide = db.prepare("UPDATE chargebacks SET status = ?, updated_at = ? WHERE id = ? AND status = 'open'");

  return {
    insert: (c: Chargeback) => insert.run(c),
    get: (id: string) => byId.get(id) as Chargeback | undefined,
    /** The open chargeback of a transaction or payment, if it has one. */
    openFor: (subjectId: string) => openOf.get(subjectId) as Chargeback | undefined,
    /** Decides an open chargeback; false when it was no longer open. */
    decide: (id: string, status: Exclude<ChargebackStatus, 'open'>, now: number) => decide.run(status, now, id).changes === 1,
    /** Newest first. */
    list(filter: ChargebackFilter): Chargeback[] {
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
      if (filter.subjectId) {
        where.push('subject_id = ?');
        args.push(filter.subjectId);
      }
      const sql = `SELECT ${COLUMNS} FROM chargebacks ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, rowid DESC LIMIT ?`;
      return db.prepare(sql).all(...args, filter.limit) as Chargeback[];
    },
  };
}
