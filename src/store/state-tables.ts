// Whole-database access for snapshots and reset. Tables are discovered from the schema, so a
// table added by any later migration is exported, imported and reset without touching this file.
import type { Db } from './open-database.js';

/** Rows of one table: column names once, then one array of values per row. */
export interface TableDump {
  columns: string[];
  rows: unknown[][];
}

/** Tables that are bookkeeping of the schema itself, never state. */
const SCHEMA_TABLES = new Set(['schema_migrations']);

/** Binary values (none today) survive JSON as {"$base64": "..."}. */
function toJson(value: unknown): unknown {
  return Buffer.isBuffer(value) ? { $base64: value.toString('base64') } : value;
}

function fromJson(value: unknown): unknown {
  if (value && typeof value === 'object' && typeof (value as { $base64?: unknown }).$base64 === 'string') {
    return Buffer.from((value as { $base64: string }).$base64, 'base64');
  }
  return value;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Reads and replaces whole tables. */
export function createStateTables(db: Db) {
  const schemaVersion = db.prepare('SELECT MAX(version) FROM schema_migrations').pluck();
  /** Ordinary tables of the main schema; `wr` marks WITHOUT ROWID ones. */
  const tableList = () =>
    (db.pragma('table_list') as Array<{ schema: string; name: string; type: string; wr: number }>)
      .filter((t) => t.schema === 'main' && t.type === 'table' && !t.name.startsWith('sqlite_') && !SCHEMA_TABLES.has(t.name))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  const tables = () => tableList().map((t) => t.name);
  const columnInfo = (table: string) => db.prepare(`PRAGMA table_info(${quote(table)})`).all() as Array<{ name: string; type: string }>;
  const columnsOf = (table: string) => columnInfo(table).map((c) => c.name);

  return {
    /** Every state table (all but schema_migrations), by name. */
    tables,
    columnsOf,
    /** The declared type of each column (upper case: 'TEXT', 'INTEGER', 'REAL', ...). */
    columnTypes: (table: string): Map<string, string> => new Map(columnInfo(table).map((c) => [c.name, c.type.toUpperCase()])),
    /** The highest migration applied. */
    schemaVersion: () => (schemaVersion.get() as number | null) ?? 0,
    /** Every row of a table, in insertion (rowid) order, or key order for WITHOUT ROWID tables. */
    dump(table: string): TableDump {
      const columns = columnsOf(table);
      const order = tableList().find((t) => t.name === table)?.wr ? '' : ' ORDER BY rowid';
      const rows = (db.prepare(`SELECT ${columns.map(quote).join(', ')} FROM ${quote(table)}${order}`).raw().all() as unknown[][]).map((row) => row.map(toJson));
      return { columns, rows };
    },
    /**
     * Deletes every row of the tables not in `keep`. Call inside a transaction: foreign keys are
     * checked at its commit, so the order of deletion does not matter.
     */
    wipe(keep: ReadonlySet<string> = new Set()): void {
      db.pragma('defer_foreign_keys = ON');
      for (const table of tables()) if (!keep.has(table)) db.prepare(`DELETE FROM ${quote(table)}`).run();
    },
    /**
     * Inserts rows into a table (inside the caller's transaction, after wipe). Returns the rowid of
     * each row in order (none for WITHOUT ROWID tables), so the caller can read back what was stored.
     */
    insert(table: string, dump: TableDump): Array<number | bigint> {
      if (dump.rows.length === 0) return [];
      const statement = db.prepare(`INSERT INTO ${quote(table)} (${dump.columns.map(quote).join(', ')}) VALUES (${dump.columns.map(() => '?').join(', ')})`);
      const rowids = dump.rows.map((row) => statement.run(...row.map(fromJson)).lastInsertRowid);
      return tableList().find((t) => t.name === table)?.wr ? [] : rowids;
    },
    /** The largest value of any of `columns` in any table that has them (0 for none): the newest time recorded. */
    newestTime(columns: readonly string[]): number {
      let newest = 0;
      for (const table of tables()) {
        for (const column of columnsOf(table).filter((name) => columns.includes(name))) {
          const value = db.prepare(`SELECT MAX(${quote(column)}) FROM ${quote(table)}`).pluck().get();
          if (typeof value === 'number' && value > newest) newest = value;
        }
      }
      return newest;
    },
    /** The stored values of `columns` for the rows with these rowids, by rowid (after affinity conversions). */
    storedRows(table: string, columns: string[]): Map<number | bigint, unknown[]> {
      const rows = db.prepare(`SELECT rowid, ${columns.map(quote).join(', ')} FROM ${quote(table)}`).raw().all() as unknown[][];
      return new Map(rows.map((row) => [row[0] as number | bigint, row.slice(1)]));
    },
  };
}

/** The whole-database access of one sandbox. */
export type StateTables = ReturnType<typeof createStateTables>;
