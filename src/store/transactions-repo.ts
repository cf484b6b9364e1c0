// S2S transactions (the /api/ family): one row per payment attempt on a terminal.
import type { Db } from './open-database.js';
import type { ScriptedOutcome } from '../domain/outcomes.js';

/** A stored S2S transaction. Money in minor units, times in sandbox-clock milliseconds. */
export interface Transaction {
  transId: string;
  merchantId: string;
  terNo: number;
  reference: string;
  amount: number;
  currency: string;
  mop: string;
  brand: string;
  ccno: string | null;
  orderStatus: number;
  response: string;
  productName: string;
  webhookUrl: string;
  returnUrl: string;
  billIp: string | null;
  customer: Record<string, string>;
  encryptionMethod: 'aes256' | 'none';
  /** What the transaction does (column outcome, a name snapshots carry). */
  script: ScriptedOutcome;
  statusToken: string;
  refunded: number;
  createdAt: number;
  updatedAt: number;
}

const COLUMNS = `trans_id AS transId, merchant_id AS merchantId, ter_no AS terNo, reference, amount, currency, mop, brand, ccno,
  order_status AS orderStatus, response, product_name AS productName, webhook_url AS webhookUrl, return_url AS returnUrl,
  bill_ip AS billIp, customer, encryption_method AS encryptionMethod, outcome AS script, status_token AS statusToken, refunded,
  created_at AS createdAt, updated_at AS updatedAt`;

type Row = Omit<Transaction, 'customer' | 'script'> & { customer: string; script: string };

function fromRow(row: Row): Transaction;
function fromRow(row: Row | undefined): Transaction | undefined;
function fromRow(row: Row | undefined): Transaction | undefined {
  if (!row) return undefined;
  return { ...row, customer: JSON.parse(row.customer), script: JSON.parse(row.script) };
}

/** Filters of the store-level transaction list, which only the stored-rows benchmark reads (bench/rows.js); the dashboard lists through services/dashboard/queries.ts. */
export interface TransactionFilter {
  merchantId?: string;
  orderStatus?: number;
  reference?: string;
  /** Keyset pagination: only rows listed after this one (older; createdAt, transId). */
  startingAfter?: { createdAt: number; transId: string };
  limit: number;
}

/** Prepared statements over the transactions table. */
export function createTransactionsRepo(db: Db) {
  const insert = db.prepare(`INSERT INTO transactions (trans_id, merchant_id, ter_no, reference, amount, currency, mop, brand, ccno,
    order_status, response, product_name, webhook_url, return_url, bill_ip, customer, encryption_method, outcome, status_token,
    refunded, created_at, updated_at) VALUES (@transId, @merchantId, @terNo, @reference, @amount, @currency, @mop, @brand, @ccno,
    @orderStatus, @response, @productName, @webhookUrl, @returnUrl, @billIp, @customer, @encryptionMethod, @script, @statusToken,
    @refunded, @createdAt, @updatedAt)`);
  const byId = db.prepare(`SELECT ${COLUMNS} FROM transactions WHERE trans_id = ?`);
  const byStatusToken = db.prepare(`SELECT ${COLUMNS} FROM transactions WHERE status_token = ?`);
  const byReference = db.prepare(
    'SELECT trans_id AS transId, status_token AS statusToken FROM transactions WHERE ter_no = ? AND reference = ?',
  );
  const setStatus = db.prepare('UPDATE transactions SET order_status = ?, response = ?, updated_at = ? WHERE trans_id = ?');
  const addRefunded = db.prepare(
    'UPDATE transactions SET refunded = refunded + ?, order_status = ?, response = ?, updated_at = ? WHERE trans_id = ?',
  );

  return {
    insert: (t: Transaction) => insert.run({ ...t, customer: JSON.stringify(t.customer), script: JSON.stringify(t.script) }),
    get: (transId: string) => fromRow(byId.get(transId) as Row | undefined),
    byStatusToken: (token: string) => fromRow(byStatusToken.get(token) as Row | undefined),
    /** The payment that already uses `reference` on the terminal (references are unique per terminal), if any. */
    byReference: (terNo: number, reference: string) =>
      byReference.get(terNo, reference) as Pick<Transaction, 'transId' | 'statusToken'> | undefined,
    setStatus: (transId: string, orderStatus: number, response: string, now: number) => setStatus.run(orderStatus, response, now, transId),
    addRefunded: (transId: string, amount: number, orderStatus: number, response: string, now: number) =>
      addRefunded.run(amount, orderStatus, response, now, transId),
    list(filter: TransactionFilter): Transaction[] {
      const where: string[] = [];
      const args: unknown[] = [];
      // A reference names at most one row per terminal: it is looked up through the unique
      // (ter_no, reference) index, one probe per terminal, and the other filters are kept off
      // their indexes (the unary +) so the planner cannot pick a scan of a whole merchant instead.
      const searchByReference = Boolean(filter.reference);
      const column = (name: string) => (searchByReference ? `+${name}` : name);
      if (filter.merchantId) {
        where.push(`${column('merchant_id')} = ?`);
        args.push(filter.merchantId);
      }
      if (filter.orderStatus !== undefined) {
        where.push(`${column('order_status')} = ?`);
        args.push(filter.orderStatus);
      }
      if (searchByReference) {
        where.push('ter_no IN (SELECT ter_no FROM terminals) AND reference = ?');
        args.push(filter.reference);
      }
      if (filter.startingAfter) {
        where.push('(created_at, trans_id) < (?, ?)');
        args.push(filter.startingAfter.createdAt, filter.startingAfter.transId);
      }
      const sql = `SELECT ${COLUMNS} FROM transactions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, trans_id DESC LIMIT ?`;
      return (db.prepare(sql).all(...args, filter.limit) as Row[]).map((row) => fromRow(row));
    },
  };
}
