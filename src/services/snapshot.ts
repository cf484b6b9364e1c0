// State snapshots and reset. export() writes every table (except schema_migrations) to one JSON
// document; import() replaces all state with one in a single transaction; reset() empties every
// table but the credentials, drops the merchants made on demand and reseeds; replaceMerchant()
// does the same for one merchant's rows. Tables come from the schema, so new ones are included.
import * as z from 'zod';
import { SandboxError } from '../errors.js';
import { validate } from '../contracts/validate.js';
import { readFixtures } from '../store/credentials-repo.js';
import { cellTypeProblem, createStateTables, type ColumnRule, type TableDump } from '../store/state-tables.js';
import { CREDENTIAL_TABLES, type RowCounts } from '../store/merchant-rows.js';
import type { ServiceDeps } from './deps.js';
import type { Scenarios } from './scenarios.js';
import { PAYMENT_STATES } from '../domain/payment-state.js';
import { ORDER_STATUS } from '../domain/order-status.js';
import type { Store } from '../store/store.js';

/** The `format` of every snapshot document. */
export const SNAPSHOT_FORMAT = 'paysandbox.snapshot';
/** The document layout version; bumped only when the layout (not the schema) changes. */
export const SNAPSHOT_VERSION = 1;

// Cells are checked against their column's type by checkTypes, so the 400 can name the column.
const cellSchema = z.unknown().describe('a value of the column\'s type: a string, a number, null, or {"$base64": "..."} for binary data');

/** A snapshot document (POST /_sandbox/import). */
export const snapshotSchema = z.object({
  format: z.literal(SNAPSHOT_FORMAT).describe(`"${SNAPSHOT_FORMAT}" (a file written by sandbox export)`),
  version: z.literal(SNAPSHOT_VERSION).describe(`${SNAPSHOT_VERSION}, the snapshot layout this sandbox reads`),
  schema_version: z.number().int().nonnegative().describe('the migration number of the sandbox that exported it'),
  exported_at: z.string().optional(),
  tables: z
    .record(z.string(), z.object({ columns: z.array(z.string()).min(1), rows: z.array(z.array(cellSchema)) }).strict())
    .describe('an object of tables, each {"columns": [...], "rows": [[...], ...]}'),
});

/** A snapshot document as exported. */
export interface SnapshotDocument {
  format: typeof SNAPSHOT_FORMAT;
  version: typeof SNAPSHOT_VERSION;
  schema_version: number;
  exported_at: string;
  tables: Record<string, TableDump>;
}

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
  challenges: { state: ['open', 'passed', 'failed', 'cancelled', 'expired'], kind: ['otp', 'bank', 'wallet', 'upi', 'qr'] },
  deliveries: { status: ['pending', 'succeeded', 'failed'] },
  checkout_sessions: { status: ['open', 'complete', 'expired'] },
  s2s_refunds: { status: ['pending', 'succeeded', 'failed'] },
  refunds_v1: { status: ['pending', 'succeeded', 'failed'] },
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
function checkTypes(table: string, dump: { columns: string[]; rows: unknown[][] }, rules: ColumnRule[]): void {
  if (dump.rows.length === 0) return;
  const missing = rules.find((rule) => rule.required && !rule.defaulted && !dump.columns.includes(rule.name));
  if (missing) {
    throw new SandboxError('parameter_invalid', `table ${table}, column ${missing.name}: every row needs a value and the snapshot has no such column; add "${missing.name}" to its columns`, `tables.${table}.columns`);
  }
  const byName = new Map(rules.map((rule) => [rule.name, rule]));
  const columns = dump.columns.map((name) => byName.get(name)!);
  dump.rows.forEach((row, index) => {
    columns.forEach((rule, i) => {
      const problem = cellTypeProblem(rule, row[i]);
      if (problem) throw new SandboxError('parameter_invalid', `table ${table}, row ${index}, column ${rule.name} (${rule.type}): ${problem}; fix the row or export again with sandbox export`, `tables.${table}.rows.${index}`);
    });
  });
}

/** How much of each table an import or reset left in place. */
export type TableCounts = Record<string, number>;

/** Exports, imports and resets the whole state. */
export class Snapshot {
  private readonly state;
  /** Set by the server: webhook attempts in flight, which a wipe must not pull the rows from under. */
  deliveriesInFlight: () => number = () => 0;
  /**
   * Called after a reset or import committed, for services that keep state in memory (the fault
   * injector's rules): services.ts adds them here, since they are built after this one.
   */
  readonly onReplaced: Array<(how: 'reset' | 'import') => void> = [];

  constructor(
    private readonly deps: ServiceDeps,
    private readonly scenarios: Scenarios,
  ) {
    this.state = createStateTables(deps.store.db);
  }

  /** Every state table as one JSON-ready document. */
  export(): SnapshotDocument {
    const { store, clock } = this.deps;
    // One read transaction, so the tables agree with each other.
    return store.db.transaction(() => ({
      format: SNAPSHOT_FORMAT,
      version: SNAPSHOT_VERSION,
      schema_version: this.state.schemaVersion(),
      exported_at: new Date(clock.now()).toISOString(),
      tables: Object.fromEntries(this.state.tables().map((table) => [table, this.state.dump(table)])),
    }))() as SnapshotDocument;
  }

  /** Replaces all state with a snapshot; a bad document is a 400 and changes nothing. */
  async import(input: unknown): Promise<TableCounts> {
    const doc = validate(snapshotSchema, input);
    const current = this.state.schemaVersion();
    if (doc.schema_version > current) {
      throw new SandboxError('parameter_invalid', `the snapshot comes from a newer sandbox (schema ${doc.schema_version}, this one has ${current}); upgrade paysandbox or export again from this version`, 'schema_version');
    }
    const known = new Set(this.state.tables());
    for (const [table, dump] of Object.entries(doc.tables)) {
      if (!known.has(table)) throw new SandboxError('parameter_invalid', `the snapshot has a table "${table}" this sandbox does not know; remove it from "tables"`, `tables.${table}`);
      const columns = new Set(this.state.columnsOf(table));
      const unknown = dump.columns.find((column) => !columns.has(column));
      if (unknown) throw new SandboxError('parameter_invalid', `table ${table} has no column "${unknown}"; remove it from the snapshot`, `tables.${table}.columns`);
      const bad = dump.rows.findIndex((row) => row.length !== dump.columns.length);
      if (bad >= 0) throw new SandboxError('parameter_invalid', `row ${bad} of table ${table} has ${dump.rows[bad]!.length} values for ${dump.columns.length} columns; give one value per column`, `tables.${table}.rows.${bad}`);
      checkTypes(table, dump, this.state.columnRules(table));
    }
    await this.quiesce();
    const keep = new Set([...CREDENTIAL_TABLES].filter((table) => !(table in doc.tables)));
    try {
      this.replaceState(() => {
        this.state.wipe(keep);
        const inserted = Object.entries(doc.tables).map(([table, dump]) => ({ table, dump, rowids: this.state.insert(table, dump) }));
        // Throws a 400 on the first row the repositories could not read; the transaction rolls back.
        for (const { table, dump, rowids } of inserted) this.checkImported(table, dump, rowids);
        // Leases belong to the process that exported; here nothing is in flight yet.
        this.deps.store.deliveries.releaseAllLeases();
      });
    } catch (err) {
      if ((err as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) {
        throw new SandboxError('parameter_invalid', `the snapshot does not fit the database (${(err as Error).message}); export it again with sandbox export`, 'tables');
      }
      throw err;
    }
    this.announce('import');
    return this.counts();
  }

  /** Empties every table except the seeded credentials (merchants made on demand go too), reseeds them and reloads --scenario. */
  async reset(): Promise<TableCounts> {
    const { store, config } = this.deps;
    const fixtures = readFixtures(config.fixturesPath);
    await this.quiesce();
    this.replaceState(() => {
      this.state.wipe(CREDENTIAL_TABLES);
      for (const id of store.credentials.createdIds()) store.merchantRows.remove(id, false);
      // A reset is a fresh start: the clock's offset went with the wipe, and what is seeded
      // from here on (the scenario entries) carries wall-clock times again.
      this.deps.clock.reload();
      store.credentials.seed(fixtures);
      this.scenarios.loadStartupFile();
    });
    this.announce('reset');
    return this.counts();
  }

  /**
   * Deletes every row one merchant owns in a transaction of its own, and the merchant with its
   * credentials unless `keepCredentials`; the other merchants' rows stay as they are. Returns how
   * many rows went from each table.
   */
  async replaceMerchant(merchantId: string, keepCredentials: boolean): Promise<RowCounts> {
    await this.quiesce();
    let removed: RowCounts = {};
    this.replaceState(() => {
      removed = this.deps.store.merchantRows.remove(merchantId, keepCredentials);
    });
    this.deps.activity.publish({ kind: 'state.reset', at: this.deps.clock.now(), data: { how: keepCredentials ? 'merchant' : 'merchant.deleted', merchant: merchantId } });
    return removed;
  }

  /**
   * Refuses (400, naming table, row and column) a stored row the repositories would choke on: the
   * checks above on the values as SQLite stored them, then each row read through its repository.
   */
  private checkImported(table: string, dump: TableDump, rowids: Array<number | bigint>): void {
    const refuse = (index: number, column: string | null, problem: string): never => {
      throw new SandboxError('parameter_invalid', `table ${table}, row ${index}${column ? `, column ${column}` : ''}: ${problem}; fix the row or export again with sandbox export`, `tables.${table}.rows.${index}`);
    };
    // Stored values (after SQLite's type conversions); a WITHOUT ROWID table is checked as sent.
    const stored = rowids.length ? this.state.storedRows(table, dump.columns) : null;
    dump.rows.forEach((sent, index) => {
      const row = stored ? (stored.get(rowids[index]!) ?? sent) : sent;
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
        reader.read(this.deps.store, String(row[keyAt]));
      } catch (err) {
        refuse(index, null, `it cannot be read back (${(err as Error).message})`);
      }
    });
  }

  /**
   * Rewrites the tables in a transaction of its own (foreign keys are checked at COMMIT, so never
   * in a shared batch), then drops the credentials the repository remembered: they may have been
   * replaced, or read inside a transaction that rolled back.
   */
  private replaceState(write: () => void): void {
    try {
      this.deps.store.batch.alone(write);
    } finally {
      this.deps.store.credentials.forget();
      // The clock resumes from the new state (an imported offset, or none), or the old one on a rollback.
      this.deps.clock.reload();
    }
  }

  private counts(): TableCounts {
    return Object.fromEntries(this.state.tables().map((table) => [table, (this.deps.store.db.prepare(`SELECT COUNT(*) FROM "${table}"`).pluck().get() as number)]));
  }

  private announce(how: 'reset' | 'import'): void {
    for (const listener of this.onReplaced) listener(how);
    this.deps.activity.publish({ kind: 'state.reset', at: this.deps.clock.now(), data: { how } });
    this.deps.logger.info(how === 'reset' ? 'state reset: every table but the credentials emptied' : 'state replaced from a snapshot');
  }

  /** Waits (real time, bounded by the webhook timeout) until no webhook attempt is in flight. */
  private async quiesce(): Promise<void> {
    const deadline = Date.now() + this.deps.config.webhookTimeoutMs * 2 + 1000;
    while (this.deliveriesInFlight() > 0) {
      if (Date.now() > deadline) throw new SandboxError('invalid_state', 'webhook attempts are still in flight; try again in a few seconds');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}
