// /v1/ payments: one row per payment of the bearer API, with its card summary, amounts captured
// and refunded, and the scripted outcome it replays.
import type { Db } from './open-database.js';
import type { AdviceCode, ScriptedOutcome } from '../domain/outcomes.js';
import type { PaymentState } from '../domain/payment-state.js';
import type { PaymentInitiator } from '../domain/vocabularies.js';

/** Why a collected SEPA Direct Debit came back: the SEPA reason code and its words. */
export interface ReturnReason {
  code: string;
  message: string;
}

/** A stored payment. Money in minor units, times in sandbox-clock milliseconds. */
export interface Payment {
  id: string;
  merchantId: string;
  amount: number;
  currency: string;
  method: string;
  routing: string;
  acquirer: string;
  customer: Record<string, string>;
  /** The card brand, or the bank or method name for other methods (the iDEAL bank, "SEPA"). */
  instrumentLabel: string;
  cardLast4: string;
  cardExpMonth: number;
  cardExpYear: number;
  token: string | null;
  reference: string | null;
  description: string | null;
  metadata: Record<string, string>;
  capture: boolean;
  amountCaptured: number;
  amountRefunded: number;
  status: PaymentState;
  declineCode: string | null;
  failureMessage: string | null;
  /** Who started it: the customer, present, or the merchant on a stored token (a renewal). */
  initiator: PaymentInitiator;
  /** 'off_session': this customer-initiated payment stores its card for merchant-initiated charges. */
  setupFutureUsage: 'off_session' | null;
  /** A decline's advice for retry logic (try_again_later, do_not_try_again, update_card). */
  adviceCode: AdviceCode | null;
  /** Why a SEPA debit came back (status returned). */
  returnReason: ReturnReason | null;
  webhookUrl: string | null;
  returnUrl: string | null;
  /** What the payment does (column outcome, a name snapshots carry). */
  script: ScriptedOutcome;
  createdAt: number;
  updatedAt: number;
}

/** Filters of GET /v1/payments; times in ms, bounds inclusive. */
export interface PaymentFilter {
  merchantId: string;
  status?: PaymentState;
  createdGte?: number;
  createdLte?: number;
  /** Keyset pagination: only payments listed after this one (older; the cursor of starting_after). */
  startingAfter?: { createdAt: number; id: string };
  limit: number;
}

// card_brand keeps its name (snapshots carry column names) though it holds a bank or method name too.
const COLUMNS = `id, merchant_id AS merchantId, amount, currency, method, routing, acquirer, customer, card_brand AS instrumentLabel,
  card_last4 AS cardLast4, card_exp_month AS cardExpMonth, card_exp_year AS cardExpYear, token, reference, description, metadata,
  capture, amount_captured AS amountCaptured, amount_refunded AS amountRefunded, status, decline_code AS declineCode,
  failure_message AS failureMessage, initiator, setup_future_usage AS setupFutureUsage, advice_code AS adviceCode,
  return_reason AS returnReason, webhook_url AS webhookUrl, return_url AS returnUrl, outcome AS script, created_at AS createdAt,
  updated_at AS updatedAt`;

type Row = Omit<Payment, 'customer' | 'metadata' | 'script' | 'capture' | 'returnReason'> & {
  returnReason: string | null;
  customer: string;
  metadata: string;
  script: string;
  capture: number;
};

function fromRow(row: Row): Payment;
function fromRow(row: Row | undefined): Payment | undefined;
function fromRow(row: Row | undefined): Payment | undefined {
  if (!row) return undefined;
  return {
    ...row,
    customer: JSON.parse(row.customer),
    metadata: JSON.parse(row.metadata),
    script: JSON.parse(row.script),
    capture: row.capture === 1,
    returnReason: row.returnReason === null ? null : JSON.parse(row.returnReason),
  };
}

/** Prepared statements over the payments table. */
export function createPaymentsRepo(db: Db) {
  const insert = db.prepare(`INSERT INTO payments (id, merchant_id, amount, currency, method, routing, acquirer, customer, card_brand,
    card_last4, card_exp_month, card_exp_year, token, reference, description, metadata, capture, amount_captured, amount_refunded,
    status, decline_code, failure_message, initiator, setup_future_usage, advice_code, return_reason, webhook_url, return_url, outcome,
    created_at, updated_at) VALUES (@id, @merchantId, @amount, @currency, @method, @routing, @acquirer, @customer, @instrumentLabel,
    @cardLast4, @cardExpMonth, @cardExpYear, @token, @reference, @description, @metadata, @capture, @amountCaptured, @amountRefunded,
    @status, @declineCode, @failureMessage, @initiator, @setupFutureUsage, @adviceCode, @returnReason, @webhookUrl, @returnUrl, @script,
    @createdAt, @updatedAt)`);
  const byId = db.prepare(`SELECT ${COLUMNS} FROM payments WHERE id = ?`);
  const byIdForMerchant = db.prepare(`SELECT ${COLUMNS} FROM payments WHERE id = ? AND merchant_id = ?`);
  const update = db.prepare(`UPDATE payments SET status = @status, amount_captured = @amountCaptured, amount_refunded = @amountRefunded,
    decline_code = @declineCode, failure_message = @failureMessage, advice_code = @adviceCode, return_reason = @returnReason,
    updated_at = @updatedAt WHERE id = @id`);

  return {
    insert: (p: Payment) =>
      insert.run({
        ...p,
        customer: JSON.stringify(p.customer),
        metadata: JSON.stringify(p.metadata),
        script: JSON.stringify(p.script),
        capture: p.capture ? 1 : 0,
        returnReason: p.returnReason && JSON.stringify(p.returnReason),
      }),
    /** Any merchant's payment (jobs and challenges, which carry no merchant). */
    get: (id: string) => fromRow(byId.get(id) as Row | undefined),
    /** The payment only when `merchantId` owns it; another merchant's id reads as missing. */
    getForMerchant: (id: string, merchantId: string) => fromRow(byIdForMerchant.get(id, merchantId) as Row | undefined),
    /** Writes the fields a state change may touch. */
    update: (p: Payment) => update.run({ ...p, returnReason: p.returnReason && JSON.stringify(p.returnReason) }),
    list(filter: PaymentFilter): Payment[] {
      const where = ['merchant_id = ?'];
      const args: unknown[] = [filter.merchantId];
      if (filter.status) {
        where.push('status = ?');
        args.push(filter.status);
      }
      if (filter.createdGte !== undefined) {
        where.push('created_at >= ?');
        args.push(filter.createdGte);
      }
      if (filter.createdLte !== undefined) {
        where.push('created_at <= ?');
        args.push(filter.createdLte);
      }
      if (filter.startingAfter) {
        where.push('(created_at, id) < (?, ?)');
        args.push(filter.startingAfter.createdAt, filter.startingAfter.id);
      }
      const sql = `SELECT ${COLUMNS} FROM payments WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?`;
      return (db.prepare(sql).all(...args, filter.limit) as Row[]).map((row) => fromRow(row));
    },
  };
}
