// State snapshots and reset. export() writes every table (except schema_migrations) to one JSON
// document; import() replaces all state with one in a single transaction; reset() empties every
// table but the credentials, drops the merchants made on demand and reseeds; replaceMerchant()
// does the same for one merchant's rows. Tables come from the schema, so new ones are included.
import { SandboxError, errorMessage } from '../../errors.js';
import { validate } from '../../contracts/validate.js';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, snapshotSchema } from '../../contracts/state.js';
import { readFixtures } from '../../store/fixtures.js';
import { createStateTables, type TableDump } from '../../store/state-tables.js';
import { CREDENTIAL_TABLES, type RowCounts } from '../../store/merchant-rows.js';
import type { ServiceDeps } from '../deps.js';
import type { Scenarios } from '../scenarios.js';
import type { Signals, StateReplacement } from '../signals.js';
import type { DeliveriesInFlight } from '../../webhooks/delivery/in-flight.js';
import { checkImported, checkTypes, refusePublicKeyClash } from './checks.js';
import { iso } from '../../views/time.js';

/** A snapshot document as exported. */
export interface SnapshotDocument {
  format: typeof SNAPSHOT_FORMAT;
  version: typeof SNAPSHOT_VERSION;
  schema_version: number;
  exported_at: string;
  tables: Record<string, TableDump>;
}

/** How much of each table an import or reset left in place. */
export type TableCounts = Record<string, number>;

/** Exports, imports and resets the whole state. */
export class Snapshot {
  private readonly state;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly scenarios: Scenarios,
    /** The delivery worker's attempts in flight, which a wipe must not pull the rows from under. */
    private readonly inFlight: DeliveriesInFlight,
    /** Told once a reset or import committed ('state.replaced'), for what keeps state in memory. */
    private readonly signals: Signals,
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
      exported_at: iso(clock.now()),
      tables: Object.fromEntries(this.state.tables().map((table) => [table, this.state.dump(table)])),
    }))() as SnapshotDocument;
  }

  /** Replaces all state with a snapshot; a bad document is a 400 and changes nothing. */
  async import(input: unknown): Promise<TableCounts> {
    const doc = validate(snapshotSchema(), input);
    const current = this.state.schemaVersion();
    if (doc.schema_version > current) {
      throw new SandboxError(
        'parameter_invalid',
        `the snapshot comes from a newer sandbox (schema ${doc.schema_version}, this one has ${current}); upgrade paysandbox or export again from this version`,
        'schema_version',
      );
    }
    const known = new Set(this.state.tables());
    for (const [table, dump] of Object.entries(doc.tables)) {
      if (!known.has(table))
        throw new SandboxError(
          'parameter_invalid',
          `the snapshot has a table "${table}" this sandbox does not know; remove it from "tables"`,
          `tables.${table}`,
        );
      const columns = new Set(this.state.columnsOf(table));
      const unknown = dump.columns.find((column) => !columns.has(column));
      if (unknown)
        throw new SandboxError(
          'parameter_invalid',
          `table ${table} has no column "${unknown}"; remove it from the snapshot`,
          `tables.${table}.columns`,
        );
      const bad = dump.rows.findIndex((row) => row.length !== dump.columns.length);
      if (bad >= 0)
        throw new SandboxError(
          'parameter_invalid',
          `row ${bad} of table ${table} has ${dump.rows[bad].length} values for ${dump.columns.length} columns; give one value per column`,
          `tables.${table}.rows.${bad}`,
        );
      checkTypes(table, dump, this.state.columnRules(table));
    }
    await this.quiesce();
    const keep = new Set([...CREDENTIAL_TABLES].filter((table) => !(table in doc.tables)));
    try {
      this.replaceState(() => {
        this.state.wipe(keep);
        const inserted = Object.entries(doc.tables).map(([table, dump]) => ({ table, dump, rowids: this.state.insert(table, dump) }));
        // Throws a 400 on the first row the repositories could not read; the transaction rolls back.
        for (const { table, dump, rowids } of inserted) checkImported(this.deps.store, this.state, table, dump, rowids);
        refusePublicKeyClash(this.deps.store, doc.tables.terminals);
        // Leases belong to the process that exported; here nothing is in flight yet.
        this.deps.store.deliveries.releaseAllLeases();
      });
    } catch (err) {
      if ((err as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) {
        throw new SandboxError(
          'parameter_invalid',
          `the snapshot does not fit the database (${errorMessage(err)}); export it again with sandbox export`,
          'tables',
        );
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
    const { store } = this.deps;
    // Only this merchant's webhooks are waited for: another merchant's are no business of its reset.
    await this.quiesce(merchantId);
    let removed: RowCounts;
    try {
      // A transaction of its own: foreign keys are checked at its COMMIT, so never in a shared batch.
      removed = store.batch.alone(() => store.merchantRows.remove(merchantId, keepCredentials));
    } catch (err) {
      store.credentials.forget();
      throw err;
    }
    // The shared clock is untouched, and the other merchants' credentials stay remembered.
    if (!keepCredentials) store.credentials.removed(merchantId);
    this.deps.activity.publish({
      kind: 'state.reset',
      at: this.deps.clock.now(),
      data: { how: keepCredentials ? 'merchant' : 'merchant.deleted', merchant: merchantId },
    });
    return removed;
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
    return Object.fromEntries(
      this.state.tables().map((table) => [table, this.deps.store.db.prepare(`SELECT COUNT(*) FROM "${table}"`).pluck().get() as number]),
    );
  }

  private announce(how: StateReplacement): void {
    this.signals.emit('state.replaced', how);
    this.deps.activity.publish({ kind: 'state.reset', at: this.deps.clock.now(), data: { how } });
    this.deps.logger.info(how === 'reset' ? 'state reset: every table but the credentials emptied' : 'state replaced from a snapshot');
  }

  /** Waits (real time, bounded by the webhook timeout) until no webhook attempt of the merchant (or of any, when undefined) is in flight. */
  private async quiesce(merchantId?: string): Promise<void> {
    const deadline = Date.now() + this.deps.config.webhookTimeoutMs * 2 + 1000;
    while ((merchantId === undefined ? this.inFlight.busy : this.inFlight.busyFor(merchantId)) > 0) {
      if (Date.now() > deadline)
        throw new SandboxError(
          'invalid_state',
          `webhook attempts${merchantId === undefined ? '' : ` of ${merchantId}`} are still in flight; try again in a few seconds`,
        );
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}
