// The migrations stay as shipped, so their CHECK (column IN (...)) lists are copies of the
// vocabularies of src/domain/vocabularies.ts: each must equal its array, or a value the code
// writes would be refused by SQLite (or one SQLite takes would be unknown to the code). Read from
// the schema every migration leaves, so a later migration that rebuilds a table is what counts.
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import {
  ADJUSTMENT_KINDS,
  CHARGEBACK_REASONS,
  CHARGEBACK_STATUSES,
  CHECKOUT_SESSION_STATUSES,
  DELIVERY_STATUSES,
  FAULT_SCOPES,
  FAULT_SOURCES,
  orList,
  PAYMENT_FAMILIES,
  REFUND_STATUSES,
  SETTLEMENT_STATUSES,
  SIGNATURE_MODES,
  JOURNAL_SURFACES,
  PAYMENT_INITIATORS,
  SETUP_FUTURE_USAGES,
} from '../../src/domain/vocabularies.js';
import { migrate, type Db } from '../../src/store/open-database.js';

/** Each checked column (table.column) and the vocabulary it holds. */
const VOCABULARY_OF: Record<string, readonly string[]> = {
  'deliveries.status': DELIVERY_STATUSES,
  's2s_refunds.status': REFUND_STATUSES,
  'refunds_v1.status': REFUND_STATUSES,
  'checkout_sessions.status': CHECKOUT_SESSION_STATUSES,
  'chargebacks.subject_type': PAYMENT_FAMILIES,
  'chargebacks.reason': CHARGEBACK_REASONS,
  'chargebacks.status': CHARGEBACK_STATUSES,
  'settlements.status': SETTLEMENT_STATUSES,
  'settlement_items.subject_type': PAYMENT_FAMILIES,
  'settlement_adjustments.subject_type': PAYMENT_FAMILIES,
  'settlement_adjustments.kind': ADJUSTMENT_KINDS,
  'fault_rules.scope': FAULT_SCOPES,
  'fault_rules.source': FAULT_SOURCES,
  'webhook_endpoints.signature': SIGNATURE_MODES,
  'payments.initiator': PAYMENT_INITIATORS,
  'payments.setup_future_usage': SETUP_FUTURE_USAGES,
  'request_journal.surface': JOURNAL_SURFACES,
  // Only the store writes these two, each in one place (idempotency-repo.ts, credentials-repo.ts).
  'idempotency_keys.state': ['in_progress', 'done'],
  'merchants.created_by': ['fixtures', 'api'],
};

/** Every `column ... CHECK (column IN ('a', 'b'))` of the migrated schema, as table.column -> values. */
function checkedColumns(): Record<string, string[]> {
  const db = new Database(':memory:') as Db;
  try {
    migrate(db);
    const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL").all() as Array<{
      name: string;
      sql: string;
    }>;
    return Object.fromEntries(
      tables.flatMap(({ name, sql }) =>
        [...sql.matchAll(/CHECK \((\w+) IN \(([^)]*)\)\)/g)].map(([, column, list]) => [
          `${name}.${column}`,
          [...list!.matchAll(/'([^']*)'/g)].map((value) => value[1]!),
        ]),
      ),
    );
  } finally {
    db.close();
  }
}

it('every CHECK list of the schema equals its vocabulary, value for value and in order', () => {
  const checked = checkedColumns();
  expect(Object.keys(checked).sort()).toEqual(Object.keys(VOCABULARY_OF).sort());
  for (const [column, values] of Object.entries(checked)) expect(values, column).toEqual(VOCABULARY_OF[column]);
});

it('orList writes a vocabulary as a sentence does', () => {
  expect(orList(['open'])).toBe('open');
  expect(orList(['created', 'paid'])).toBe('created or paid');
  expect(orList(CHARGEBACK_STATUSES)).toBe('open, won or lost');
  expect(orList(SIGNATURE_MODES, true)).toBe('"plain", "timestamped" or "standard"');
});
