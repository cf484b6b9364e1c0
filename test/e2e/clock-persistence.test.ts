// Sandbox time is kept with the state: a restart on the same database file resumes the clock
// (it used to fall back to the wall clock, so new rows were older than old ones), export and
// import carry it, and a reset starts it over at the wall clock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/index.js';
import { api } from '../helpers/http.js';

const DAY = 86_400_000;
let dir: string;
const open: SandboxHandle[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'paysandbox-clock-'));
});
afterEach(async () => {
  for (const sandbox of open.splice(0)) await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(db: string): Promise<SandboxHandle> {
  const sandbox = await startSandbox({ db });
  open.push(sandbox);
  return sandbox;
}

async function call(sandbox: SandboxHandle, method: string, path: string, body?: unknown) {
  const res = await api(sandbox.url, { authorization: `Bearer ${sandbox.credentials.apiKey}` }).request(method, path, body);
  expect(res.status, res.text).toBeLessThan(300);
  return res.json;
}

const pay = (sandbox: SandboxHandle) => call(sandbox, 'POST', '/v1/payments', { amount: 1000, currency: 'EUR', token: 'tok_visa' });

it('a restart on the same database keeps sandbox time 2 days ahead, so a new payment lists before an older one', async () => {
  const db = join(dir, 'sandbox.db');
  const first = await start(db);
  await call(first, 'POST', '/_sandbox/clock/advance', { duration: '2d' });
  const before = await pay(first);
  await first.close();
  open.splice(0);

  const second = await start(db);
  const clock = await call(second, 'GET', '/_sandbox/clock');
  expect(clock.offset_ms).toBeGreaterThanOrEqual(2 * DAY);
  expect(clock.offset).toMatch(/^2d/);
  expect(Date.parse(clock.now)).toBeGreaterThanOrEqual(Date.now() + 2 * DAY - 60_000);
  const after = await pay(second);
  expect(Date.parse(after.created_at)).toBeGreaterThan(Date.parse(before.created_at));
  const list = await call(second, 'GET', '/v1/payments');
  expect(list.data.map((p: { id: string }) => p.id)).toEqual([after.id, before.id]);
});

it('export carries the clock, import restores it, and reset starts it over at the wall clock', async () => {
  const source = await start(':memory:');
  await call(source, 'POST', '/_sandbox/clock/advance', { duration: '2d' });
  const snapshot = await call(source, 'GET', '/_sandbox/export');
  expect(snapshot.tables.sandbox_clock.columns).toEqual(['id', 'offset_ms', 'saved_at']);
  expect(snapshot.tables.sandbox_clock.rows[0][1]).toBeGreaterThanOrEqual(2 * DAY);

  const target = await start(':memory:');
  expect((await call(target, 'GET', '/_sandbox/clock')).offset_ms).toBeLessThan(60_000);
  await call(target, 'POST', '/_sandbox/import', snapshot);
  expect((await call(target, 'GET', '/_sandbox/clock')).offset_ms).toBeGreaterThanOrEqual(2 * DAY);
  expect(target.clock.now()).toBeGreaterThanOrEqual(Date.now() + 2 * DAY - 60_000);

  await call(target, 'POST', '/_sandbox/reset');
  const reset = await call(target, 'GET', '/_sandbox/clock');
  expect(reset).toMatchObject({ offset_ms: 0, offset: '0ms' });
  expect(Math.abs(Date.parse(reset.now) - Date.now())).toBeLessThan(60_000);
});

it('an imported snapshot without a clock still never puts sandbox time behind its newest row', async () => {
  const source = await start(':memory:');
  await call(source, 'POST', '/_sandbox/clock/advance', { duration: '5d' });
  const newest = await pay(source);
  const snapshot = await call(source, 'GET', '/_sandbox/export');
  delete snapshot.tables.sandbox_clock; // as written by a sandbox before the clock was kept

  const target = await start(':memory:');
  await call(target, 'POST', '/_sandbox/import', snapshot);
  expect(target.clock.now()).toBeGreaterThanOrEqual(Date.parse(newest.created_at));
  const later = await pay(target);
  expect((await call(target, 'GET', '/v1/payments')).data[0].id).toBe(later.id);
});
