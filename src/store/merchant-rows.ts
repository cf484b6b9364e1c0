// Every row one merchant owns, for a scoped reset (POST /_sandbox/reset {"merchant"}) and for
// deleting a merchant made on demand. A table with a merchant_id column is owned row by row
// without being listed here; the tables that reach their merchant through another table are
// listed in OWNED_THROUGH (a table with both is owned by either), and the few that belong to no
// merchant in SHARED_TABLES. A table in
// none of these is a bug (test/unit/merchant-rows.test.ts fails on it), so a later migration
// cannot add state that a merchant's reset would leave behind.
import type { Db } from './open-database.js';

/** Each table whose rows belong to a merchant through another table: the condition naming them (@m is the merchant id). */
export const OWNED_THROUGH: Readonly<Record<string, string>> = {
  delivery_attempts: 'delivery_id IN (SELECT id FROM deliveries WHERE merchant_id = @m)',
  settlement_items: 'settlement_id IN (SELECT id FROM settlements WHERE merchant_id = @m)',
  settlement_adjustments: 'settlement_id IN (SELECT id FROM settlements WHERE merchant_id = @m)',
  // A job's subject is a challenge token, transID, payment, refund, session, settlement or saved token id (services/job-kinds.ts).
  jobs: `subject_id IN (SELECT token FROM challenges WHERE merchant_id = @m UNION ALL SELECT trans_id FROM transactions WHERE merchant_id = @m
    UNION ALL SELECT id FROM payments WHERE merchant_id = @m UNION ALL SELECT id FROM s2s_refunds WHERE merchant_id = @m
    UNION ALL SELECT id FROM refunds_v1 WHERE merchant_id = @m UNION ALL SELECT id FROM checkout_sessions WHERE merchant_id = @m
    UNION ALL SELECT id FROM settlements WHERE merchant_id = @m UNION ALL SELECT id FROM tokens WHERE merchant_id = @m)`,
  // The idempotency middleware scopes keys by the merchant id of the request's credential.
  idempotency_keys: 'scope = @m',
  fault_rules: "scope = 'endpoint' AND target IN (SELECT id FROM webhook_endpoints WHERE merchant_id = @m)",
  // Scoped to one of its terminals (or, by its merchant_id column, to the merchant).
  scenario_entries: 'ter_no IN (SELECT ter_no FROM terminals WHERE merchant_id = @m)',
  merchants: 'id = @m',
};

/**
 * Rows that name the merchant itself rather than its state: deleting the merchant removes them, a
 * scoped reset keeps them as it keeps the merchant (a merchant= fault rule stays until cleared).
 */
export const OWNED_WITH_CREDENTIALS: Readonly<Record<string, string>> = {
  fault_rules: 'merchant = @m',
};

/** Tables that belong to the whole sandbox, not to a merchant. */
export const SHARED_TABLES: ReadonlySet<string> = new Set(['sandbox_clock', 'schema_migrations']);

/** The credentials: a scoped reset keeps them, deleting the merchant removes them. */
export const CREDENTIAL_TABLES: ReadonlySet<string> = new Set(['merchants', 'terminals', 'api_keys']);

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** How many rows of each table a merchant owns (tables with none left out). */
export type RowCounts = Record<string, number>;

/** Every table of the main schema, by name. */
function tables(db: Db): string[] {
  return (db.pragma('table_list') as Array<{ schema: string; name: string; type: string }>)
    .filter((t) => t.schema === 'main' && t.type === 'table' && !t.name.startsWith('sqlite_'))
    .map((t) => t.name)
    .sort();
}

const hasMerchantColumn = (db: Db, table: string) =>
  (db.prepare(`PRAGMA table_info(${quote(table)})`).all() as Array<{ name: string }>).some((c) => c.name === 'merchant_id');

/** The condition selecting a merchant's rows of `table`, or null for a shared table. */
function ownership(db: Db, table: string): string | null {
  if (SHARED_TABLES.has(table)) return null;
  const through = OWNED_THROUGH[table];
  const direct = hasMerchantColumn(db, table) ? 'merchant_id = @m' : undefined;
  if (through !== undefined && direct !== undefined) return `${direct} OR (${through})`;
  if (through !== undefined || direct !== undefined) return through ?? direct;
  throw new Error(
    `table ${table} has no merchant_id column and is not listed in src/store/merchant-rows.ts: say there which merchant owns its rows, or that it is shared`,
  );
}

/**
 * Every table a merchant can own rows of, with its condition; tables owned through another come
 * first, since their conditions read the tables they go through, and the credentials last.
 */
function owned(db: Db, keepCredentials: boolean): Array<[string, string]> {
  const all = tables(db).flatMap((table): Array<[string, string]> => {
    const condition = ownership(db, table);
    if (condition === null || (keepCredentials && CREDENTIAL_TABLES.has(table))) return [];
    const withCredentials = keepCredentials ? undefined : OWNED_WITH_CREDENTIALS[table];
    return [[table, withCredentials === undefined ? condition : `(${condition}) OR ${withCredentials}`]];
  });
  const rank = ([table]: [string, string]) => (CREDENTIAL_TABLES.has(table) ? 2 : table in OWNED_THROUGH ? 0 : 1);
  return all.sort((a, b) => rank(a) - rank(b));
}

/** Counts and deletes the rows of one merchant. */
export function createMerchantRows(db: Db) {
  return {
    /** Every table's ownership rule (throws naming a table that has none): for the coverage test. */
    ownership: (): Record<string, string | null> => Object.fromEntries(tables(db).map((table) => [table, ownership(db, table)])),
    /** How many rows of each table the merchant owns, credentials included. */
    count(merchantId: string): RowCounts {
      const counts: RowCounts = {};
      for (const [table, condition] of owned(db, false)) {
        const n = db
          .prepare(`SELECT COUNT(*) FROM ${quote(table)} WHERE ${condition}`)
          .pluck()
          .get({ m: merchantId }) as number;
        if (n > 0) counts[table] = n;
      }
      return counts;
    },
    /**
     * Deletes the merchant's rows (and, unless `keepCredentials`, the merchant itself); returns how
     * many went from each table. Call inside a transaction: foreign keys are checked at its commit.
     */
    remove(merchantId: string, keepCredentials: boolean): RowCounts {
      db.pragma('defer_foreign_keys = ON');
      const removed: RowCounts = {};
      for (const [table, condition] of owned(db, keepCredentials)) {
        const n = db.prepare(`DELETE FROM ${quote(table)} WHERE ${condition}`).run({ m: merchantId }).changes;
        if (n > 0) removed[table] = n;
      }
      return removed;
    },
  };
}
