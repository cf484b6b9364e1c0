// Merchants with all their credentials, for GET /_sandbox/merchants and the library's handle: one
// query per page, each merchant's terminals and keys read through their merchant_id indexes
// (migration 019), in the order the merchants were made (seeded ones first). Building each record
// from every terminal and key in memory made the list quadratic: 4.9 s at 5 000 merchants.
import type { Merchant, Terminal } from './credentials-repo.js';
import type { Db } from './open-database.js';

/** A merchant with all its credentials, as the control API, the CLI and startSandbox() show it. */
export interface MerchantRecord extends Merchant {
  apiKeys: string[];
  terminals: Array<Omit<Terminal, 'merchantId'>>;
}

const RECORD = `SELECT m.id, m.name, m.webhook_secret AS webhookSecret, m.currency, m.created_by AS createdBy,
  (SELECT json_group_array(json_object('terNo', t.ter_no, 'publicKey', t.public_key, 'privateKey', t.private_key) ORDER BY t.ter_no)
    FROM terminals t WHERE t.merchant_id = m.id) AS terminals,
  (SELECT json_group_array(k.key ORDER BY k.key) FROM api_keys k WHERE k.merchant_id = m.id) AS apiKeys
  FROM merchants m`;

type Row = Omit<MerchantRecord, 'terminals' | 'apiKeys'> & { terminals: string; apiKeys: string };

const toRecord = (row: Row): MerchantRecord => ({ ...row, terminals: JSON.parse(row.terminals), apiKeys: JSON.parse(row.apiKeys) });

/** Reads merchant records. */
export function createMerchantRecords(db: Db) {
  const page = db.prepare(`${RECORD} WHERE m.rowid > ? ORDER BY m.rowid LIMIT ?`);
  const one = db.prepare(`${RECORD} WHERE m.id = ?`);
  const position = db.prepare('SELECT rowid FROM merchants WHERE id = ?').pluck();
  return {
    /** One merchant's record. */
    get: (id: string) => {
      const row = one.get(id) as Row | undefined;
      return row && toRecord(row);
    },
    /** Up to `limit` records (-1: every one) after the merchant `after` (undefined: from the first), oldest first. */
    list: (after: number | undefined, limit: number) => (page.all(after ?? 0, limit) as Row[]).map(toRecord),
    /** Where a merchant sits in the list (the cursor of starting_after); undefined when there is no such merchant. */
    position: (id: string) => position.get(id) as number | undefined,
  };
}
