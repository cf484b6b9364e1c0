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
  /** The customer-initiated payment that stored it for off-session use; null until one was authorized. */
  offSessionPaymentId: string | null;
  /** What its next charges do, one each (approve or a decline code); the card's own outcome once used up. */
  scriptedOutcomes: string[];
  /** The issuer renews the card at its expiry (the test card 4000000000000176). */
  renews: boolean;
}

type Row = Omit<StoredToken, 'script' | 'scriptedOutcomes' | 'renews'> & { script: string; scriptedOutcomes: string; renews: number };

const COLUMNS = `id, merchant_id AS merchantId, brand, last4, exp_month AS expMonth, exp_year AS expYear, outcome AS script,
  created_at AS createdAt, off_session_payment_id AS offSessionPaymentId, scripted_outcomes AS scriptedOutcomes, renews`;

function fromRow(row: Row | undefined): StoredToken | undefined {
  if (!row) return undefined;
  return {
    ...row,
    script: JSON.parse(row.script) as ScriptedOutcome,
    scriptedOutcomes: JSON.parse(row.scriptedOutcomes) as string[],
    renews: row.renews === 1,
  };
}

/** Prepared statements over the tokens table. */
export function createTokensRepo(db: Db) {
  const insert = db.prepare(`INSERT INTO tokens (id, merchant_id, brand, last4, exp_month, exp_year, outcome, created_at,
    off_session_payment_id, scripted_outcomes, renews) VALUES (@id, @merchantId, @brand, @last4, @expMonth, @expYear, @script, @createdAt,
    @offSessionPaymentId, @scriptedOutcomes, @renews)`);
  const byId = db.prepare(`SELECT ${COLUMNS} FROM tokens WHERE id = ?`);
  const byIdForMerchant = db.prepare(`SELECT ${COLUMNS} FROM tokens WHERE id = ? AND merchant_id = ?`);
  const setOffSession = db.prepare('UPDATE tokens SET off_session_payment_id = ? WHERE id = ? AND off_session_payment_id IS NULL');
  const setOutcomes = db.prepare('UPDATE tokens SET scripted_outcomes = ? WHERE id = ?');
  const setExpiry = db.prepare('UPDATE tokens SET exp_month = ?, exp_year = ? WHERE id = ?');

  return {
    insert: (t: StoredToken) =>
      insert.run({
        ...t,
        script: JSON.stringify(t.script),
        scriptedOutcomes: JSON.stringify(t.scriptedOutcomes),
        renews: t.renews ? 1 : 0,
      }),
    /** Any merchant's token (timed jobs, which carry no merchant). */
    get: (id: string) => fromRow(byId.get(id) as Row | undefined),
    /** The token only when `merchantId` saved it; another merchant's token reads as missing. */
    getForMerchant: (id: string, merchantId: string) => fromRow(byIdForMerchant.get(id, merchantId) as Row | undefined),
    /** Records the payment that stored it for off-session use; the first one stays. */
    setOffSession: (id: string, paymentId: string) => setOffSession.run(paymentId, id).changes === 1,
    /** Replaces what its next charges are scripted to do. */
    setOutcomes: (id: string, outcomes: string[]) => setOutcomes.run(JSON.stringify(outcomes), id),
    /** The card's new expiry (the issuer renewed it). */
    setExpiry: (id: string, month: number, year: number) => setExpiry.run(month, year, id),
  };
}
