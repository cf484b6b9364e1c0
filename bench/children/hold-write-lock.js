// Another process holding the write lock of a sandbox's database, as a second sandbox or a
// script writing to the same --db file would: BEGIN IMMEDIATE, write "locked" to the ready file,
// hold the lock for the given time, then roll back and exit. Used by the bench's locked-database
// case and by test/reliability/locked-database.test.ts.
// argv: ready file, database path, how long to hold the lock in ms.
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';

const [readyFile, path, holdMs] = process.argv.slice(2);
const db = new Database(path, { fileMustExist: true });
// The sandbox may be mid-commit when we start: wait for our turn (this process has no one to keep answering).
db.pragma('busy_timeout = 5000');
db.exec('BEGIN IMMEDIATE');
writeFileSync(readyFile, 'locked\n');
setTimeout(() => {
  db.exec('ROLLBACK');
  db.close();
}, Number(holdMs));
