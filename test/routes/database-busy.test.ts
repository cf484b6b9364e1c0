// A database locked for longer than a write waits (another connection holding the write lock on
// the same file) answers 503 database_busy with Retry-After, changes nothing, and the retry succeeds; a
// timed job that meets the lock stays due and runs on the next try.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/runtime/logger.js';
import { createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';

let dir: string | undefined;
let sandbox: TestSandbox;
let other: Database.Database | undefined;

afterEach(() => {
  if (other?.inTransaction) other.exec('ROLLBACK');
  other?.close();
  sandbox.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  other = dir = undefined;
  vi.restoreAllMocks();
});

it('answers 503 database_busy with Retry-After while another process holds the write lock, and the retry goes through', async () => {
  dir = mkdtempSync(join(tmpdir(), 'paysandbox-busy-'));
  const path = join(dir, 'sandbox.db');
  sandbox = createTestSandbox({ db: path });
  await sandbox.store.batch.committed();
  other = new Database(path);
  other.exec('BEGIN IMMEDIATE');

  const body = s2sBody();
  const busy = await sandbox.request('POST', '/api/s2s', body);
  expect(busy.status).toBe(503);
  expect(busy.headers.get('retry-after')).toBe('1');
  expect(busy.json.error).toMatchObject({ type: 'api_error', code: 'database_busy' });
  expect(busy.json.error.message).toMatch(/locked.*another process.*--db.*nothing was changed, retry/);
  expect(busy.json.error.param).toBeUndefined();

  // Nothing was stored: once the lock is gone the same reference is accepted, not a 409 duplicate.
  other!.exec('ROLLBACK');
  const retried = await sandbox.request('POST', '/api/s2s', body);
  expect(retried.status).toBe(200);
  expect(retried.json).toMatchObject({ reference: body.reference, status: 'Pending' });
});

it('a timed job that meets a locked database stays due, is logged, and runs on the next try', async () => {
  sandbox = createTestSandbox();
  const errors = vi.spyOn(silentLogger, 'error');
  const created = await sandbox.request('POST', '/api/s2s', s2sBody());
  expect(created.json.status).toBe('Pending');
  sandbox.clock.advance(16 * 60_000);

  const jobs = sandbox.store.jobs;
  const markDone = jobs.markDone;
  jobs.markDone = () => {
    throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
  };
  expect(sandbox.services.jobs.runDue()).toBe(0);
  expect(errors).toHaveBeenCalledWith(
    expect.stringMatching(/^job challenge\.expire \S+ waits: the database is locked \(database is locked\); retrying in 1000 ms$/),
  );
  expect(sandbox.store.transactions.get(created.json.transID)?.orderStatus).toBe(0);

  jobs.markDone = markDone;
  expect(sandbox.services.jobs.runDue()).toBe(1);
  expect(sandbox.store.transactions.get(created.json.transID)?.orderStatus).toBe(22);
});
