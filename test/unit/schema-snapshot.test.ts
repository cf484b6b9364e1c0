// A new database built from the schema snapshot (one exec) is the database the migrations build
// step by step: the same sqlite_master, user_version, recorded migrations and foreign keys. And
// migrate() takes a snapshot only when it fits: an empty database and exactly the migrations beside it.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { migrate, migrationFiles, type Db } from '../../src/store/open-database.js';
import { readSchemaSnapshot, writeSchemaSnapshot } from '../../src/store/schema-snapshot.js';

const dir = mkdtempSync(join(tmpdir(), 'schema-snapshot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function newDb(): Db {
  const db = new Database(':memory:') as Db;
  db.pragma('foreign_keys = ON');
  return db;
}

/** What a database's schema is: every sqlite_master entry (autoindexes too), user_version, the migrations it records. */
function schemaOf(db: Db) {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
  return {
    master: db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all(),
    userVersion: db.pragma('user_version', { simple: true }),
    migrations: db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all(),
    foreignKeys: tables.map((table) => [table, db.pragma(`foreign_key_list("${table}")`)]),
    rows: tables.filter((table) => table !== 'schema_migrations').map((table) => [table, db.prepare(`SELECT * FROM "${table}"`).all()]),
  };
}

/** A snapshot file made as the build makes it: an empty database migrated step by step (no snapshot to take). */
function snapshotFile(): string {
  const file = join(dir, 'schema.sql');
  const db = newDb();
  migrate(db, Infinity, join(dir, 'none.sql'));
  writeSchemaSnapshot(db, migrationFiles(), file);
  db.close();
  return file;
}

it('a new database from the snapshot has the schema of every migration applied step by step', () => {
  const stepwise = newDb();
  migrate(stepwise, Infinity, join(dir, 'none.sql'));
  const fromSnapshot = newDb();
  migrate(fromSnapshot, Infinity, snapshotFile());
  const expected = schemaOf(stepwise);
  expect(expected.migrations.length).toBe(migrationFiles().length);
  expect(schemaOf(fromSnapshot)).toEqual(expected);
  expect(fromSnapshot.pragma('foreign_key_check')).toEqual([]);
});

it('migrate() builds a new database from the snapshot, in one exec', () => {
  const file = snapshotFile();
  const snapshot = readSchemaSnapshot(file);
  // A table no migration makes shows the snapshot was the one applied.
  writeFileSync(file, `-- migrations: ${snapshot?.migrations.join(',')}\nCREATE TABLE from_snapshot (x);\n${snapshot?.sql}`);
  const db = newDb();
  migrate(db, Infinity, file);
  expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'from_snapshot'").pluck().get()).toBe(1);
});

it('migrate() ignores a snapshot of other migrations, and any snapshot for a database that holds something', () => {
  const file = snapshotFile();
  const snapshot = readSchemaSnapshot(file);
  const stale = join(dir, 'stale.sql');
  writeFileSync(stale, `-- migrations: ${snapshot?.migrations.slice(0, -1).join(',')}\nCREATE TABLE from_snapshot (x);\n${snapshot?.sql}`);
  const fresh = newDb();
  migrate(fresh, Infinity, stale);
  expect(fresh.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'from_snapshot'").pluck().get()).toBe(0);
  expect(fresh.prepare('SELECT count(*) FROM schema_migrations').pluck().get()).toBe(migrationFiles().length);

  const current = join(dir, 'current.sql');
  writeFileSync(current, `-- migrations: ${snapshot?.migrations.join(',')}\nCREATE TABLE from_snapshot (x);\n${snapshot?.sql}`);
  const old = newDb();
  migrate(old, 12, current);
  migrate(old, Infinity, current);
  expect(old.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'from_snapshot'").pluck().get()).toBe(0);
  expect(old.prepare('SELECT count(*) FROM schema_migrations').pluck().get()).toBe(migrationFiles().length);
});
