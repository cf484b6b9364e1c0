// The schema a new database gets in one exec: the build migrates an empty database step by step
// (scripts/copy-assets.js) and writes what that left in sqlite_master to dist/store/schema.sql,
// headed by the names of the migrations it ran. Applying the 20-odd migrations one by one, each in
// its transaction with a foreign-key check (table rebuilds included), took 45-100 ms of every
// start on a new database and of every startSandbox() on ':memory:'; the snapshot takes 3-7 ms.
// A database that holds anything, or a snapshot made from other migrations than the ones beside
// it, is migrated step by step as before (migrate() in open-database.ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type Database from 'better-sqlite3';

/** The database handle (open-database.ts's Db, named here from the driver so the two files do not import each other). */
type Db = Database.Database;

/** The first line of a snapshot: the migration files it was made from, comma-separated. */
const HEADER = '-- migrations: ';

/** A snapshot read from its file: the migrations it stands for and the statements that build it. */
export interface SchemaSnapshot {
  migrations: string[];
  sql: string;
}

/** Tables before indexes, views and triggers, each in the order SQLite stored them. */
const SCHEMA_SQL = `SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
  ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, rowid`;

/** Writes the schema of `db` (migrated from `migrations`, an empty database before) to `file`. */
export function writeSchemaSnapshot(db: Db, migrations: string[], file: string): void {
  const statements = db.prepare(SCHEMA_SQL).pluck().all() as string[];
  // A migration that seeded rows would need them in the snapshot too; none does, so refuse rather than drop them.
  for (const table of db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'schema_migrations'")
    .pluck()
    .all() as string[])
    if ((db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get() as number) > 0)
      throw new Error(`the migrations leave rows in ${table}; a schema snapshot holds no rows`);
  writeFileSync(file, `${HEADER}${migrations.join(',')}\n${statements.map((sql) => `${sql};`).join('\n')}\n`);
}

/** The snapshot in `file`, or undefined when there is none (src/ under vitest has none). */
export function readSchemaSnapshot(file: string): SchemaSnapshot | undefined {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  const end = text.indexOf('\n');
  if (!text.startsWith(HEADER) || end < 0) return undefined;
  return { migrations: text.slice(HEADER.length, end).split(','), sql: text.slice(end + 1) };
}

/** True when `db` holds nothing at all: no table, index, view or trigger. */
export function isEmptyDatabase(db: Db): boolean {
  return db.prepare('SELECT count(*) FROM sqlite_master').pluck().get() === 0;
}

/** Builds the snapshot's schema in one transaction and records its migrations as applied, as migrate() would. */
export function applySchemaSnapshot(db: Db, snapshot: SchemaSnapshot): void {
  db.transaction(() => {
    db.exec(snapshot.sql);
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    const now = new Date().toISOString();
    for (const name of snapshot.migrations) record.run(parseInt(name, 10), name, now);
  })();
}
