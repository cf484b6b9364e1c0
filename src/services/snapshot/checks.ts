// The checks an imported snapshot passes (POST /_sandbox/import, services/snapshot/snapshot.ts): each is a
// 400 that names the table, row and column, so a bad snapshot changes nothing and never becomes
// rows that make later reads fail.
import { SandboxError, present, errorMessage } from '../../errors.js';
import { cellTypeProblem, type ColumnRule, type StateTables, type TableDump } from '../../store/state-tables.js';
import { publicKeyClashText, PUBLIC_KEY_RULE } from '../../domain/public-keys.js';
import { PAYMENT_STATES } from '../../domain/payment-state.js';
import { ORDER_STATUS } from '../../domain/order-status.js';
import {
  CHALLENGE_KINDS,
  CHALLENGE_STATES,
  CHECKOUT_SESSION_STATUSES,
  DELIVERY_STATUSES,
  REFUND_STATUSES,
} from '../../domain/vocabularies.js';
import type { Store } from '../../store/store.js';

// ---- What an imported row must hold to be readable ----------------------------------------------
// The schema's own constraints (NOT NULL, CHECK, foreign keys, UNIQUE) are enforced by SQLite at
// insert and commit. They do not cover what the repositories assume when they read a row back:
// JSON in TEXT columns (fromRow JSON.parses it), integers in INTEGER columns (SQLite's affinity
// keeps "abc" as text), and states the code knows. A row breaking those would be imported and then
// make every read of it a 500, so import refuses it with a 400: types before anything is written
// (checkTypes), JSON and states inside its transaction.

/** TEXT columns that the repositories JSON.parse (see fromRow in src/store/*-repo.ts), and the JSON they hold. */
const JSON_COLUMNS: Record<string, Record<string, 'object' | 'array'>> = {
  transactions: { customer: 'object', outcome: 'object' },
  payments: { customer: 'object', metadata: 'object', outcome: 'object' },
  challenges: { details: 'object' },
  checkout_sessions: { methods: 'array', attempt: 'object' },
  events: { data: 'object' },
  delivery_attempts: { request_headers: 'object', response_headers: 'object' },
  idempotency_keys: { response_headers: 'object' },
  jobs: { payload: 'object' },
  webhook_endpoints: { events: 'array' },
  tokens: { outcome: 'object' },
};

/** Columns whose values the code switches on; the schema CHECKs some of these, not all. */
const ENUM_COLUMNS: Record<string, Record<string, readonly (string | number)[]>> = {
  payments: { status: PAYMENT_STATES },
  transactions: { order_status: Object.values(ORDER_STATUS).map((s) => s.code) },
  challenges: { state: CHALLENGE_STATES, kind: CHALLENGE_KINDS },
  deliveries: { status: DELIVERY_STATUSES },
  checkout_sessions: { status: CHECKOUT_SESSION_STATUSES },
  s2s_refunds: { status: REFUND_STATUSES },
  refunds_v1: { status: REFUND_STATUSES },
};

/** The repository getter of a table, by the column holding its key: the last check reads each row through it. */
const READERS: Record<string, { key: string; read: (store: Store, key: string) => unknown }> = {
  transactions: { key: 'trans_id', read: (store, key) => store.transactions.get(key) },
  payments: { key: 'id', read: (store, key) => store.payments.get(key) },
  challenges: { key: 'token', read: (store, key) => store.challenges.get(key) },
  checkout_sessions: { key: 'id', read: (store, key) => store.checkoutSessions.get(key) },
  events: { key: 'id', read: (store, key) => store.events.get(key) },
  webhook_endpoints: { key: 'id', read: (store, key) => store.webhookEndpoints.get(key) },
};

/** Why a stored value cannot be read back, or null when it can (types are checked before insert, by checkTypes). */
function cellProblem(table: string, column: string, value: unknown): string | null {
  if (value === null) return null; // NOT NULL is checked by checkTypes and enforced by the schema.
  const json = JSON_COLUMNS[table]?.[column];
  if (json) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(value));
    } catch {
      return `must hold JSON (a JSON ${json} as text), not ${JSON.stringify(value)}`;
    }
    const kind = Array.isArray(parsed) ? 'array' : parsed !== null && typeof parsed === 'object' ? 'object' : 'other';
    if (kind !== json) return `must hold a JSON ${json}, not ${JSON.stringify(value)}`;
  }
  const allowed = ENUM_COLUMNS[table]?.[column];
  if (allowed && !allowed.includes(value as string | number)) {
    return `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, not ${JSON.stringify(value)}`;
  }
  return null;
}

/**
 * Refuses (400, naming table, column and row) a snapshot whose values do not fit the schema's types,
 * before anything is written: a string in an INTEGER column, a number in a TEXT one, a missing or
 * null value in a NOT NULL column without a default.
 */
export function checkTypes(table: string, dump: { columns: string[]; rows: unknown[][] }, rules: ColumnRule[]): void {
  if (dump.rows.length === 0) return;
  const missing = rules.find((rule) => rule.required && !rule.defaulted && !dump.columns.includes(rule.name));
  if (missing) {
    throw new SandboxError(
      'parameter_invalid',
      `table ${table}, column ${missing.name}: every row needs a value and the snapshot has no such column; add "${missing.name}" to its columns`,
      `tables.${table}.columns`,
    );
  }
  const byName = new Map(rules.map((rule) => [rule.name, rule]));
  const columns = dump.columns.map((name) => present(byName.get(name), `column ${name} (checked above)`));
  dump.rows.forEach((row, index) => {
    columns.forEach((rule, i) => {
      const problem = cellTypeProblem(rule, row[i]);
      if (problem)
        throw new SandboxError(
          'parameter_invalid',
          `table ${table}, row ${index}, column ${rule.name} (${rule.type}): ${problem}; fix the row or export again with sandbox export`,
          `tables.${table}.rows.${index}`,
        );
    });
  });
}

/**
 * Refuses (400, naming table, row and column) a stored row the repositories would choke on: the
 * checks above on the values as SQLite stored them, then each row read through its repository.
 */
export function checkImported(store: Store, state: StateTables, table: string, dump: TableDump, rowids: Array<number | bigint>): void {
  const refuse = (index: number, column: string | null, problem: string): never => {
    throw new SandboxError(
      'parameter_invalid',
      `table ${table}, row ${index}${column ? `, column ${column}` : ''}: ${problem}; fix the row or export again with sandbox export`,
      `tables.${table}.rows.${index}`,
    );
  };
  // Stored values (after SQLite's type conversions); a WITHOUT ROWID table is checked as sent.
  const stored = rowids.length ? state.storedRows(table, dump.columns) : null;
  dump.rows.forEach((sent, index) => {
    const row = stored ? (stored.get(rowids[index]) ?? sent) : sent;
    dump.columns.forEach((column, i) => {
      const problem = cellProblem(table, column, row[i]);
      if (problem) refuse(index, column, problem);
    });
  });
  // The safety net: whatever the checks above missed, a getter that throws is a 400 too.
  const reader = READERS[table];
  const keyAt = reader ? dump.columns.indexOf(reader.key) : -1;
  if (!reader || keyAt < 0) return;
  dump.rows.forEach((row, index) => {
    try {
      reader.read(store, String(row[keyAt]));
    } catch (err) {
      refuse(index, null, `it cannot be read back (${errorMessage(err)})`);
    }
  });
}

/**
 * A 400 naming two terminals of an imported snapshot whose public keys clash (one ends with the
 * other): encrypted_data could not tell them apart (docs/decisions.md).
 */
export function refusePublicKeyClash(store: Store, terminals: TableDump | undefined): void {
  if (!terminals) return; // the terminals were kept as they were
  const clash = store.credentials.storedPublicKeyClash();
  if (!clash) return;
  const [shorter, longer] = clash;
  const at = terminals.columns.indexOf('public_key');
  // The row to change: the snapshot's, of the two (the other may be a terminal the import kept).
  const rowOf = (key: string) => (at < 0 ? -1 : terminals.rows.findIndex((r) => r[at] === key));
  const row = rowOf(longer.publicKey) >= 0 ? rowOf(longer.publicKey) : rowOf(shorter.publicKey);
  throw new SandboxError(
    'parameter_invalid',
    `table terminals${row < 0 ? '' : `, row ${row}`}: the public_key ${JSON.stringify(longer.publicKey)} of terminal ${longer.terNo} ${publicKeyClashText(longer.publicKey, shorter.publicKey)}, the public_key of terminal ${shorter.terNo}; ${PUBLIC_KEY_RULE}: change one of them in the snapshot`,
    row < 0 ? 'tables.terminals' : `tables.terminals.rows.${row}`,
  );
}
