// Card tokens saved by POST /v1/tokens: brand, last 4, expiry and the scripted outcome of the card
// they were saved from. Never the number or the CVV (migration 013 dropped the number column), so
// neither can reach the database file, its WAL or a snapshot.
import type { ScriptedOutcome } from '../domain/outcomes.js';
import type { Db } from './open-database.js';

/** A saved card. */
export interface StoredToken {
  id: string;
  merchantId: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  /** What a payment with the token does: the script of the test card it was saved from (column outcome, a name snapshots carry). */
  script: ScriptedOutcome;
  createdAt: number;
}

type Row = Omit<StoredToken, 'script'> & { script: string };

const COLUMNS =
  'id, merchant_id AS merchantId, brand, last4, exp_month AS expMonth, exp_year AS expYear, outcome AS script, created_at AS createdAt';

/** Prepared statements over the tokens table. */
export function createTokensRepo(db: Db) {
  const insert = db.prepare(`INSERT INTO tokens (id, merchant_id, brand, last4, exp_month, exp_year, outcome, created_at)
    VALUES (@id, @merchantId, @brand, @last4, @expMonth, @expYear, @script, @createdAt)`);
  const byIdForMerchant = db.prepare(`SELECT ${COLUMNS} FROM tokens WHERE id = ? AND merchant_id = ?`);

  return {
    insert: (t: StoredToken) => insert.run({ ...t, script: JSON.stringify(t.script) }),
    /** The token only when `merchantId` saved it; another merchant's token reads as missing. */
    getForMerchant: (id: string, merchantId: string): StoredToken | undefined => {
      const row = byIdForMerchant.get(id, merchantId) as Row | undefined;
      return row ? { ...row, script: JSON.parse(row.script) as ScriptedOutcome } : undefined;
    },
  };
}
