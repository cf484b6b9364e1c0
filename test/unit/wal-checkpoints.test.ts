// The writer checkpoints its own WAL (src/store/open-database.ts): the commit that takes it past
// 1 000 pages copies them into the database file, and the next write starts the WAL file over, so
// it stays a few MB however much is written, with no thread of its own.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';

const MB = 1024 * 1024;

it('copies the WAL into the database file from its own commits and keeps the WAL file small', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wal-checkpoints-'));
  const file = join(dir, 'sandbox.db');
  const db = openDatabase(file);
  try {
    db.exec('CREATE TABLE filler (blob BLOB)');
    const insert = db.prepare('INSERT INTO filler VALUES (randomblob(4000))');
    const commit = db.transaction(() => {
      for (let i = 0; i < 5; i++) insert.run();
    });
    // 24 MB in small commits, as the group commit writes them: six times what the WAL may hold.
    for (let n = 0; n < 1_200; n++) commit();
    // Read while the database is open: its last close checkpoints and removes the WAL anyway.
    expect(statSync(file).size).toBeGreaterThan(20 * MB);
    expect(statSync(`${file}-wal`).size).toBeLessThan(5 * MB);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
