// Card tokens saved by POST /v1/tokens. The number stays here so a payment with the token replays
// its test card's outcome; nothing outside the tokens service reads it.
import type { Db } from './open-database.js';

/** A saved card. */
export interface StoredToken {
  id: string;
  merchantId: string;
  number: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  createdAt: number;
}

const COLUMNS = 'id, merchant_id AS merchantId, number, brand, last4, exp_month AS expMonth, exp_year AS expYear, created_at AS createdAt';

/** Prepared statements over the tokens table. */
export function createTokensRepo(db: Db) {
  const insert = db.prepare(`INSERT INTO tokens (id, merchant_id, number, brand, last4, exp_month, exp_year, created_at)
    VALUES (@id, @merchantId, @number, @brand, @last4, @expMonth, @expYear, @createdAt)`);
  const byIdForMerchant = db.prepare(`SELECT ${COLUMNS} FROM tokens WHERE id = ? AND merchant_id = ?`);

  return {
    insert: (t: StoredToken) => insert.run(t),
    /** The token only when `merchantId` saved it; another merchant's token reads as missing. */
    getForMerchant: (id: string, merchantId: string) => byIdForMerchant.get(id, merchantId) as StoredToken | undefined,
  };
}

/** The tokens repository. */
export type TokensRepo = ReturnType<typeof createTokensRepo>;
