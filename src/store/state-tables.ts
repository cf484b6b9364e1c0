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

/** A {"$base64": "..."} cell (and nothing else in it). */
function isBinary(value: unknown): value is { $base64: string } {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    typeof (value as { $base64?: unknown }).$base64 === 'string' &&
    Object.keys(value).length === 1
  );
}

function fromJson(value: unknown): unknown {
  return isBinary(value) ? Buffer.from(value.$base64, 'base64') : value;
}

/** What a column takes, from the schema: its declared type (upper case) and whether it must hold a value. */
export interface ColumnRule {
  name: string;
  type: string;
  /** NOT NULL or a text primary key; an INTEGER PRIMARY KEY left NULL takes the next rowid. */
  required: boolean;
  /** Has a DEFAULT, so a snapshot may leave the column out. */
  defaulted: boolean;
}

/** What a column of this declared type takes (SQLite's affinity rules), for messages and checks. */
function expected(type: string): 'an integer' | 'a string' | 'a number' | null {
  if (type.includes('INT')) return 'an integer';
  if (type.includes('CHAR') || type.includes('CLOB') || type.includes('TEXT')) return 'a string';
  if (type.includes('REAL') || type.includes('FLOA') || type.includes('DOUB')) return 'a number';
  return null; // BLOB or no declared type: SQLite stores any value as it is.
}

/**
 * Why a snapshot cell cannot go into a column, or null when it can. SQLite would store "abc" in an
 * INTEGER column (and fail with a datatype mismatch on an INTEGER PRIMARY KEY): the sandbox takes
 * exactly the types an export writes, so a hand-edited snapshot gets a 400, not a 500.
 */
export function cellTypeProblem(rule: ColumnRule, value: unknown): string | null {
  if (value === null) return rule.required ? 'must have a value, not null' : null;
  const want = expected(rule.type);
  const binary = isBinary(value);
  const shown = binary ? 'binary data' : JSON.stringify(value);
  if (want === null) {
    return binary || typeof value === 'string' || typeof value === 'number'
      ? null
      : `must be a string, a number, null or {"$base64": "..."}, not ${shown}`;
  }
  const fits =
    want === 'an integer' ? Number.isSafeInteger(value) : want === 'a string' ? typeof value === 'string' : typeof value === 'number';
  if (fits) return null;
  return want === 'an integer'
    ? `must be an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}, not ${shown}`
    : `must be ${want}, not ${shown}`;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Ordinary tables of the main schema but the schema's own, by name; `wr` marks WITHOUT ROWID ones. */
function tableList(db: Db) {
  return (db.pragma('table_list') as Array<{ schema: string; name: string; type: string; wr: number }>)
    .filter((t) => t.schema === 'main' && t.type === 'table' && !t.name.startsWith('sqlite_') && !SCHEMA_TABLES.has(t.name))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** True when `table` is a WITHOUT ROWID table. */
const withoutRowid = (db: Db, table: string) => Boolean(tableList(db).find((t) => t.name === table)?.wr);

function columnInfo(db: Db, table: string) {
  return db.prepare(`PRAGMA table_info(${quote(table)})`).all() as Array<{
    name: string;
    type: string;
    notnull: number;
    dflt_value: unknown;
    pk: number;
  }>;
}

/** What each column of `table` takes (PRAGMA table_info), in schema order. */
function columnRules(db: Db, table: string): ColumnRule[] {
  const info = columnInfo(db, table);
  const rowidTable = tableList(db).find((t) => t.name === table)?.wr !== 1;
  const keyColumns = info.filter((c) => c.pk > 0).length;
  return info.map((c) => {
    const type = c.type.toUpperCase();
    const rowidKey = rowidTable && keyColumns === 1 && c.pk > 0 && type === 'INTEGER';
    return { name: c.name, type, required: !rowidKey && (c.notnull === 1 || c.pk > 0), defaulted: c.dflt_value !== null };
  });
}

/**
 * The largest value of any of `columns` in any of `tables` that has them (0 for none). Two
 * statements, whatever the number of tables: which tables have which of the columns, then all their
 * maxima in one; a statement per table and column took 1.5-3 ms of every start (clock-repo.ts).
 */
function newestTime(db: Db, tables: readonly string[], columns: readonly string[]): number {
  const found = db
    .prepare(
      'SELECT t.value AS tableName, c.name AS columnName FROM json_each(?) t JOIN pragma_table_info(t.value) c WHERE c.name IN (SELECT value FROM json_each(?))',
    )
    .all(JSON.stringify(tables), JSON.stringify(columns)) as Array<{ tableName: string; columnName: string }>;
  if (found.length === 0) return 0;
  const maxima = found.map(({ tableName, columnName }) => `SELECT MAX(${quote(columnName)}) AS v FROM ${quote(tableName)}`);
  const value = db
    .prepare(`SELECT MAX(v) FROM (${maxima.join(' UNION ALL ')}) WHERE typeof(v) IN ('integer', 'real')`)
    .pluck()
    .get();
  return typeof value === 'number' ? value : 0;
}

/** Reads and replaces whole tables. */
export function createStateTables(db: Db) {
  const schemaVersion = db.prepare('SELECT MAX(version) FROM schema_migrations').pluck();
  const tables = () => tableList(db).map((t) => t.name);
  const columnsOf = (table: string) => columnInfo(db, table).map((c) => c.name);

  return {
    /** Every state table (all but schema_migrations), by name. */
    tables,
    columnsOf,
    /** What each column takes (PRAGMA table_info), in schema order. */
    columnRules: (table: string) => columnRules(db, table),
    /** The highest migration applied. */
    schemaVersion: () => (schemaVersion.get() as number | null) ?? 0,
    /** Every row of a table, in insertion (rowid) order, or key order for WITHOUT ROWID tables. */
    dump(table: string): TableDump {
      const columns = columnsOf(table);
      const order = withoutRowid(db, table) ? '' : ' ORDER BY rowid';
      const rows = (
        db
          .prepare(`SELECT ${columns.map(quote).join(', ')} FROM ${quote(table)}${order}`)
          .raw()
          .all() as unknown[][]
      ).map((row) => row.map(toJson));
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
      const statement = db.prepare(
        `INSERT INTO ${quote(table)} (${dump.columns.map(quote).join(', ')}) VALUES (${dump.columns.map(() => '?').join(', ')})`,
      );
      const rowids = dump.rows.map((row) => statement.run(...row.map(fromJson)).lastInsertRowid);
      return withoutRowid(db, table) ? [] : rowids;
    },
    /** The largest value of any of `columns` in any table that has them (0 for none): the newest time recorded. */
    newestTime: (columns: readonly string[]) => newestTime(db, tables(), columns),
    /** The stored values of `columns` for the rows with these rowids, by rowid (after affinity conversions). */
    storedRows(table: string, columns: string[]): Map<number | bigint, unknown[]> {
      const rows = db
        .prepare(`SELECT rowid, ${columns.map(quote).join(', ')} FROM ${quote(table)}`)
        .raw()
        .all() as unknown[][];
      return new Map(rows.map((row) => [row[0] as number | bigint, row.slice(1)]));
    },
  };
}

/** The whole-database access of one sandbox. */
export type StateTables = ReturnType<typeof createStateTables>;
