import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';

it('keeps at most 2 MB of database pages in memory for a file database', () => {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'open-database-')), 'sandbox.db'));
  // In KiB when negative; better-sqlite3's own default is -16000, which a busy sandbox filled.
  expect(db.pragma('cache_size', { simple: true })).toBe(-2000);
  db.close();
});

it('keeps every row of an in-memory database bigger than the page cache', () => {
  const db = openDatabase(':memory:');
  db.exec('CREATE TABLE filler (n INTEGER, blob BLOB)');
  const insert = db.prepare('INSERT INTO filler VALUES (?, randomblob(4000))');
  db.transaction(() => {
    for (let n = 0; n < 2_000; n++) insert.run(n);
  })();
  // 8 MB of rows, four times the cache: an in-memory database has nowhere else to keep them.
  expect(db.prepare('SELECT count(*) AS rows, sum(length(blob)) AS bytes FROM filler').get()).toEqual({ rows: 2_000, bytes: 8_000_000 });
  db.close();
});
