// State snapshots and reset. export() writes every table (except schema_migrations) to one JSON
// document; import() replaces all state with one in a single transaction; reset() empties every
// table but the credentials and reseeds. Tables come from the schema, so new ones are included.
import { z } from 'zod';
import { SandboxError } from '../errors.js';
import { validate } from '../http/validation.js';
import { readFixtures } from '../store/credentials-repo.js';
import { createStateTables, type TableDump } from '../store/state-tables.js';
import type { ServiceDeps } from './deps.js';
import type { Scenarios } from './scenarios.js';

/** The `format` of every snapshot document. */
export const SNAPSHOT_FORMAT = 'paysandbox.snapshot';
/** The document layout version; bumped only when the layout (not the schema) changes. */
export const SNAPSHOT_VERSION = 1;

/** The credentials: kept by reset, and kept by import when a snapshot leaves them out. */
const CREDENTIAL_TABLES: ReadonlySet<string> = new Set(['merchants', 'terminals', 'api_keys']);

// Cells sit inside arrays, where error messages cannot reach a description: the hint is the error.
const cellSchema = z.union([z.string(), z.number(), z.null(), z.object({ $base64: z.string() }).strict()], {
  error: 'a string, a number, null, or {"$base64": "..."} for binary data',
});

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

/** How much of each table an import or reset left in place. */
export type TableCounts = Record<string, number>;

/** Exports, imports and resets the whole state. */
export class Snapshot {
  private readonly state;
  /** Set by the server: webhook attempts in flight, which a wipe must not pull the rows from under. */
  deliveriesInFlight: () => number = () => 0;

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
    }
    await this.quiesce();
    const keep = new Set([...CREDENTIAL_TABLES].filter((table) => !(table in doc.tables)));
    try {
      // Foreign keys are checked at COMMIT here: a transaction of its own, never a shared batch.
      this.deps.store.batch.alone(() => {
        this.state.wipe(keep);
        for (const [table, dump] of Object.entries(doc.tables)) this.state.insert(table, dump);
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

  /** Empties every table except the credentials, reseeds them and reloads --scenario. */
  async reset(): Promise<TableCounts> {
    const { store, config } = this.deps;
    const fixtures = readFixtures(config.fixturesPath);
    await this.quiesce();
    store.batch.alone(() => {
      this.state.wipe(CREDENTIAL_TABLES);
      store.credentials.seed(fixtures);
      this.scenarios.loadStartupFile();
    });
    this.announce('reset');
    return this.counts();
  }

  private counts(): TableCounts {
    return Object.fromEntries(this.state.tables().map((table) => [table, (this.deps.store.db.prepare(`SELECT COUNT(*) FROM "${table}"`).pluck().get() as number)]));
  }

  private announce(how: 'reset' | 'import'): void {
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
