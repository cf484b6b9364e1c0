// Opens the SQLite database with the settings the whole sandbox relies on and applies the
// numbered migrations in src/store/migrations (copied next to the build by scripts/copy-assets.js).
import Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODE_DIR } from '../code-dir.js';
import { ensureDirectory } from './sandbox-dir.js';
import { applySchemaSnapshot, isEmptyDatabase, readSchemaSnapshot } from './schema-snapshot.js';

/** The better-sqlite3 handle type, named here so other modules need not import the driver. */
export interface Db extends Database.Database {}

/** How long one SQLite call may block the event loop waiting for another connection's lock. */
export const BUSY_TIMEOUT_MS = 50;

/** The page cache of the sandbox's connection, in KiB (the `cache_size` pragma's negative form). */
const PAGE_CACHE_KB = 2000;

const MIGRATIONS_DIR = fileURLToPath(new URL('store/migrations/', CODE_DIR));
/** The schema of every migration in one file, written by the build (schema-snapshot.ts); absent under vitest. */
export const SCHEMA_SNAPSHOT = fileURLToPath(new URL('store/schema.sql', CODE_DIR));

/** Opens (creating when needed) the database at `path` (":memory:" allowed) and migrates it. */
export function openDatabase(path: string): Db {
  if (path !== ':memory:') ensureDirectory(dirname(path));
  const db: Db = new Database(path);
  // WAL + synchronous=NORMAL: a commit is durable against a process crash (kill -9), which is
  // the failure a sandbox meets; FULL would also survive power loss at 2.5x the cost per write.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // Each request's writes run in a SAVEPOINT of the shared batch (group-commit.ts); its undo
  // journal lives in memory instead of a temporary file, a third of a create's cost.
  db.pragma('temp_store = MEMORY');
  // better-sqlite3 builds SQLite with a 16 MB page cache per connection (SQLITE_DEFAULT_CACHE_SIZE
  // =-16000), and a busy sandbox filled it: 14 MB of its resident memory. SQLite's own default of
  // 2 MB costs creates, charges and the reads of 100 000 stored rows nothing measurable: the pages
  // are a pread away in the operating system's cache (bench/method.md, "Memory under load").
  // An in-memory database keeps every page whatever this says.
  db.pragma(`cache_size = -${PAGE_CACHE_KB}`);
  // Short: better-sqlite3 waits for a lock on the one event-loop thread, so a long wait froze
  // every request while another process held the write lock (5 000 ms did). 50 ms covers another
  // process's short write on a busy machine; a longer lock is waited out with timers
  // (GroupCommit.ready()), and while it lasts the wait is switched off (GroupCommit.locked).
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // The commit that takes the WAL past 1 000 pages (4 MB, SQLite's default, stated so no one raises
  // it) copies them into the database file: a PASSIVE checkpoint, which never waits for a lock.
  // At 4 000 pages one request in a few hundred paid for 16 MB and the p99 showed it; a worker
  // thread that checkpointed instead cost 7 MB of memory (its own V8 heap and connection) and gave
  // nothing back at 1 000: the throughput rows' p99 3.9-14 ms, a create's CPU 1.02 / 1.01 of the thread's
  // (bench/method.md, "Memory under load"). Once the WAL is copied whole, the next write starts it over.
  db.pragma('wal_autocheckpoint = 1000');
  // When the WAL starts over, its file is cut back to 32 MiB instead of keeping its largest size.
  db.pragma('journal_size_limit = 33554432');
  migrate(db);
  return db;
}

/** True for SQLite giving up on a lock (busy_timeout passed): the transaction was rolled back and may be retried. */
export function isDatabaseBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code);
}

/**
 * True for SQLite running out of room: SQLITE_FULL, which is also what it reports when a write
 * meets ENOSPC (and what PRAGMA max_page_count gives). The statement or transaction was rolled back.
 */
export function isStorageFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL';
}

/** The migration files, in the order they apply. */
export function migrationFiles(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((name) => /^\d+-.+\.sql$/.test(name))
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
}

/**
 * Applies every migration file not applied yet, up to number `upTo` (tests stop early to build an
 * old schema). An empty database taking them all gets the build's snapshot of the result in one
 * exec instead, when it was made from exactly these migrations (`snapshotFile`; schema-snapshot.ts).
 */
export function migrate(db: Db, upTo = Infinity, snapshotFile = SCHEMA_SNAPSHOT): void {
  const files = migrationFiles();
  if (upTo === Infinity && isEmptyDatabase(db)) {
    const snapshot = readSchemaSnapshot(snapshotFile);
    if (snapshot && snapshot.migrations.join(',') === files.join(',')) {
      applySchemaSnapshot(db, snapshot);
      return;
    }
  }
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  const seen = new Map<number, string>();
  for (const name of files) {
    const version = parseInt(name, 10);
    const other = seen.get(version);
    if (other)
      throw new Error(`two migrations are numbered ${version} (${other} and ${name}) in ${MIGRATIONS_DIR}; rebuild with npm run build`);
    seen.set(version, name);
  }
  const pending = files.filter((name) => !applied.has(parseInt(name, 10)) && parseInt(name, 10) <= upTo);
  if (pending.length === 0) return;
  // SQLite's procedure for changing a table's definition: rebuild it with foreign keys off (the
  // pragma cannot change inside a transaction), then check them all before the migration commits.
  const enforced = db.pragma('foreign_keys', { simple: true }) === 1;
  db.pragma('foreign_keys = OFF');
  try {
    for (const name of pending) {
      const sql = readFileSync(MIGRATIONS_DIR + name, 'utf8');
      db.transaction(() => {
        db.exec(sql);
        const broken = db.pragma('foreign_key_check') as Array<{ table: string; rowid: number; parent: string }>;
        if (broken.length > 0)
          throw new Error(
            `migration ${name} leaves ${broken.length} row${broken.length === 1 ? '' : 's'} whose foreign key has no parent (first: ${broken[0].table} row ${broken[0].rowid} -> ${broken[0].parent})`,
          );
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
          parseInt(name, 10),
          name,
          new Date().toISOString(),
        );
      })();
    }
  } finally {
    if (enforced) db.pragma('foreign_keys = ON');
  }
  // Rows a migration removed (013: card numbers) must not linger in the WAL's older frames either.
  db.pragma('wal_checkpoint(TRUNCATE)');
}
