import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';

it('keeps at most 2 MB of database pages in memory for a file database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'open-database-'));
  const db = openDatabase(join(dir, 'sandbox.db'));
  try {
    // In KiB when negative; better-sqlite3's own default is -16000, which a busy sandbox filled
    // (14 MB of its resident memory: docs/benchmarks.md, "Memory under load").
    expect(db.pragma('cache_size', { simple: true })).toBe(-2000);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
