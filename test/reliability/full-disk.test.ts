// A full disk (SQLITE_FULL, simulated with PRAGMA max_page_count) is not a bug: writes answer
// 507 storage_full naming the --db file and what to free, reads go on working, the workers keep
// their work and log the fault once per 30 s instead of ten times a second, and once there is
// room again writes work and nothing that was acknowledged is missing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { silentLogger, type Logger } from '../../src/runtime/logger.js';
import { startServer } from '../../src/server/start-server.js';
import { startFakeMerchant } from '../helpers/fake-merchant.js';
import { createTestSandbox, s2sBody, senderThread, type TestSandbox } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import { AUTH, paymentBody } from '../helpers/payments-api.js';
import type { Json } from '../helpers/json.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  vi.restoreAllMocks();
});

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'paysandbox-full-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'sandbox.db');
}

/** No page may be added to the database from now on: the next write that needs one fails as on a full disk. */
function fillDisk(sandbox: Pick<TestSandbox, 'db'>): () => void {
  const pages = sandbox.db.pragma('page_count', { simple: true }) as number;
  sandbox.db.pragma(`max_page_count = ${pages}`);
  return () => void sandbox.db.pragma('max_page_count = 1073741823');
}

it('writes answer 507 storage_full while the disk is full, reads keep working, and after freeing space writes work with nothing acknowledged lost', async () => {
  const db = tempDb();
  const sandbox = createTestSandbox({ db });
  cleanups.push(() => sandbox.close());
  const acknowledged: string[] = [];
  for (let i = 0; i < 3; i++) {
    const created = await sandbox.request('POST', '/api/s2s', s2sBody());
    expect(created.status).toBe(200);
    acknowledged.push(created.json.transID);
  }
  const freeSpace = fillDisk(sandbox);

  // Writes that fit in pages the database already has still succeed: keep creating until one does not.
  const untilFull = async (send: () => ReturnType<typeof sandbox.request>, id: (json: Json) => string) => {
    for (let i = 0; i < 200; i++) {
      const created = await send();
      if (created.status !== 200) return created;
      acknowledged.push(id(created.json));
    }
    throw new Error('200 creates fitted in the full database');
  };
  const full = await untilFull(
    () => sandbox.request('POST', '/api/s2s', s2sBody()),
    (json) => json.transID,
  );
  expect(full.status).toBe(507);
  expect(full.json.error).toMatchObject({ type: 'api_error', code: 'storage_full' });
  expect(full.json.error.message).toContain(`the disk holding the sandbox database (${db}) is full; nothing was changed`);
  expect(full.json.error.message).toMatch(/Free space on that disk/);
  expect(full.headers.get('retry-after')).toBeNull();
  const v1 = await untilFull(
    () => sandbox.request('POST', '/v1/payments', paymentBody(), AUTH),
    (json) => json.id,
  );
  expect(v1.status).toBe(507);
  expect(v1.json.error.code).toBe('storage_full');

  // Reads keep working.
  expect((await sandbox.request('GET', '/_sandbox/health')).status).toBe(200);
  expect((await sandbox.request('GET', `/_sandbox/transactions/${acknowledged[0]}`)).json.transID).toBe(acknowledged[0]);

  freeSpace();
  const after = await sandbox.request('POST', '/api/s2s', s2sBody());
  expect(after.status).toBe(200);
  acknowledged.push(after.json.transID);
  for (const id of acknowledged) {
    const path = id.startsWith('pay_') ? `/v1/payments/${id}` : `/_sandbox/transactions/${id}`;
    expect((await sandbox.request('GET', path, undefined, AUTH)).status).toBe(200);
  }
});

it('a create whose batch a later write of the same turn loses to a full disk answers 507, not 200 for a payment that is gone', async () => {
  const sandbox = createTestSandbox({ db: tempDb() });
  cleanups.push(() => sandbox.close());
  const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
  // Right after the create's unit, another request's write of the same turn meets the full disk,
  // and SQLite rolls the whole transaction back (as it can on SQLITE_FULL), the create's row with it.
  const { transactions } = sandbox.store;
  const insert = transactions.insert;
  transactions.insert = (t) => {
    transactions.insert = insert;
    queueMicrotask(() => {
      try {
        sandbox.store.tx(() => {
          sandbox.db.exec('ROLLBACK');
          throw full;
        });
      } catch {
        // That other request's own 507.
      }
    });
    return insert(t);
  };
  const created = await sandbox.request('POST', '/api/s2s', s2sBody({ reference: 'lost-in-batch' }));
  expect(created.status).toBe(507);
  expect(created.json.error.code).toBe('storage_full');
  expect(sandbox.store.transactions.list({ reference: 'lost-in-batch', limit: 10 })).toEqual([]);
  // Reads answer, and the next create is acknowledged and kept.
  expect((await sandbox.request('GET', '/_sandbox/health')).status).toBe(200);
  const after = await sandbox.request('POST', '/api/s2s', s2sBody());
  expect(after.status).toBe(200);
  expect((await sandbox.request('GET', `/_sandbox/transactions/${after.json.transID}`)).status).toBe(200);
});

it('a timed job that meets a full disk stays due and runs once there is room, and its log line is not repeated every retry', async () => {
  const sandbox = createTestSandbox({ db: tempDb() });
  cleanups.push(() => sandbox.close());
  const errors = vi.spyOn(silentLogger, 'error');
  const created = await sandbox.request('POST', '/api/s2s', s2sBody());
  expect(created.json.status).toBe('Pending');
  sandbox.clock.advance(16 * 60_000);

  // Whether the expiry's rows fit in pages the database already has depends on where the last
  // rows landed, so its event insert fails as SQLite fails it on a full disk.
  const events = sandbox.store.events;
  const insert = events.insert;
  events.insert = () => {
    throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
  };
  const tries = 20;
  for (let i = 0; i < tries; i++) sandbox.services.jobs.runDue();
  // The challenge expiry was not dropped: the payment is still Pending.
  expect(sandbox.store.transactions.get(created.json.transID)?.orderStatus).toBe(0);
  const lines = errors.mock.calls.map(([line]) => line as string).filter((line) => /disk holding the database is full/.test(line));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    /^job challenge\.expire \S+ waits: the disk holding the database is full \(database or disk is full\); retrying in 1000 ms$/,
  );

  events.insert = insert;
  expect(sandbox.services.jobs.runDue()).toBeGreaterThanOrEqual(1);
  expect(sandbox.store.transactions.get(created.json.transID)?.orderStatus).toBe(22);
});

it('the webhook worker logs a full disk once, not every retry, and delivers once there is room', async () => {
  // A new delivery goes to the worker from its commit, unclaimed; its retry is claimed from the
  // outbox: the receiver refuses the first attempt so the retry meets the full disk.
  const merchant = await startFakeMerchant({ statuses: [500] });
  cleanups.push(merchant.close);
  const errors: string[] = [];
  const logger: Logger = { ...silentLogger, error: (line) => void errors.push(line) };
  const sandbox = await startServer(loadConfig({ port: 0, db: tempDb(), quiet: true, retry: 'dev' }, {}), { logger, ...senderThread() });
  cleanups.push(() => sandbox.close());
  // A real full disk fails the lease update too (its WAL frame cannot be written); max_page_count
  // only limits new pages, so the claim is made to fail as it would.
  const deliveries = sandbox.store.deliveries;
  const claimDue = deliveries.claimDue;
  let claims = 0;
  const full = () => {
    claims++;
    throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
  };
  const created = await fetch(`${sandbox.url}/api/s2s`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(s2sBody({ ccno: '4242424242424242', webhook_url: `${merchant.url}/hook` })),
  });
  expect(created.status).toBe(200);
  await waitFor(() => merchant.received.length === 1 || undefined, 'the first attempt, refused');
  deliveries.claimDue = full;

  await waitFor(() => claims >= 4, 'four tries to claim the webhook', 15_000);
  expect(errors.filter((line) => line.startsWith('webhook worker could not claim deliveries: database or disk is full'))).toHaveLength(1);
  expect(merchant.received).toHaveLength(1);

  deliveries.claimDue = claimDue;
  await waitFor(() => merchant.received.length === 2, 'the webhook once the disk has room', 15_000);
});
