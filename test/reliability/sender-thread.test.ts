// The sender thread (src/webhooks/delivery/senders.ts), tested from the built package (dist/: run `npm run
// build` first), with the compiled thread entry the package ships (the sandboxes other tests start
// from src/ run a bundle of it: test/setup/sender-thread.ts). kill -9 while webhooks flow through the thread, a
// thread that dies, a locked database under delivery load, close() with attempts in flight, and
// startSandbox()'s close() leaving nothing running.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterAll, afterEach, expect, it } from 'vitest';
import type * as Library from '../../src/index.js';
import { startCliSandbox } from '../helpers/cli-sandbox.js';
import { startFakeMerchant } from '../helpers/fake-merchant.js';
import { holdWriteLock } from '../helpers/lock-holder.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const DIST = new URL('../../dist/index.js', import.meta.url).href;
const dist = () => import(DIST) as Promise<typeof Library>;
const dir = mkdtempSync(join(tmpdir(), 'sandbox-sender-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** POSTs `count` frictionless payments whose webhooks go to `webhookUrl`. */
async function pay(url: string, count: number, webhookUrl: string, prefix: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${url}/api/s2s`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(s2sBody({ reference: `${prefix}-${i}`, ccno: '4242424242424242', webhook_url: webhookUrl })),
    });
    expect(res.status).toBe(200);
  }
}

/** The distinct event ids a receiver got. */
const eventIds = (received: Array<{ headers: Record<string, unknown> }>) =>
  new Set(received.map((r) => String(r.headers['x-sandbox-event-id'])));

/** A sandbox of the built library on a file database, with its error lines kept. */
async function startBuilt(name: string, flags: Record<string, unknown> = {}) {
  const { loadConfig, startServer } = await dist();
  const errors: string[] = [];
  const logger = { request() {}, webhook() {}, info() {}, error: (line: string) => void errors.push(line) };
  const db = join(dir, `${name}.db`);
  const sandbox = await startServer(loadConfig({ port: 0, db, quiet: true, retry: 'dev', ...flags }, {}), { logger });
  cleanups.push(() => sandbox.close());
  return { sandbox, errors, db };
}

it('kill -9 while webhooks flow through the sender thread: after a restart every event arrives', async () => {
  const receiver = await startFakeMerchant();
  cleanups.push(receiver.close);
  const db = join(dir, 'kill.db');
  let sandbox = await startCliSandbox(['--db', db, '--quiet', '--retry', '100ms,100ms,100ms']);
  cleanups.push(() => sandbox.kill());
  await pay(sandbox.url, 300, `${receiver.url}/hook`, 'kill');
  await waitFor(() => receiver.received.length >= 20 || undefined, 'the first deliveries', 20_000, 1);
  await sandbox.kill();
  sandbox = await startCliSandbox(['--db', db, '--quiet']);
  await waitFor(() => eventIds(receiver.received).size >= 300 || undefined, 'all 300 events', 40_000, 20);
  await waitFor(
    async () =>
      ((await (await fetch(`${sandbox.url}/_sandbox/deliveries?status=pending&limit=1`)).json()) as { data: unknown[] }).data.length ===
        0 || undefined,
    'an empty outbox',
  );
  await sandbox.kill();
  const store = new Database(db, { readonly: true });
  expect(store.prepare("SELECT COUNT(*) FROM deliveries WHERE status != 'succeeded'").pluck().get()).toBe(0);
  expect(eventIds(receiver.received)).toEqual(new Set(store.prepare('SELECT id FROM events').pluck().all()));
  store.close();
});

it('a sender thread that dies is started again, logged, and its attempts in flight are sent again', async () => {
  let hold = true;
  const receiver = await startFakeMerchant({
    answer: () => waitFor(() => !hold || undefined, 'the receiver to answer', 20_000).then(() => 200),
  });
  cleanups.push(receiver.close);
  const { sandbox, errors } = await startBuilt('dies');
  await pay(sandbox.url, 6, `${receiver.url}/hook`, 'dies');
  await waitFor(() => receiver.received.length === 6 || undefined, 'six attempts in flight');
  expect(sandbox.worker.activeSender.mode).toBe('thread');
  await (sandbox.worker.activeSender as unknown as { worker: Worker }).worker.terminate();
  await waitFor(() => errors.find((line) => line.startsWith('webhook sender thread stopped')), 'the logged death');
  expect(errors[0]).toMatch(/^webhook sender thread stopped \(exit code 1\); started again; 6 attempts in flight are sent again$/);
  hold = false;
  await waitFor(() => sandbox.worker.busy === 0 || undefined, 'every attempt recorded');
  expect(eventIds(receiver.received).size).toBe(6);
  const statuses = sandbox.db.prepare('SELECT status, attempts FROM deliveries').all();
  expect(statuses).toEqual(Array.from({ length: 6 }, () => ({ status: 'succeeded', attempts: 1 })));
  expect(sandbox.worker.activeSender.mode).toBe('thread');
});

it('a locked database under delivery load: the worker waits it out and every webhook arrives', async () => {
  let hold = true;
  const receiver = await startFakeMerchant({ answer: () => waitFor(() => !hold || undefined, 'the lock', 20_000).then(() => 200) });
  cleanups.push(receiver.close);
  // A 1 s webhook timeout: an attempt whose record met the lock is sent again when its lease (timeout + 10 s) ends.
  const { sandbox, errors, db } = await startBuilt('locked', { webhookTimeout: '1s' });
  await pay(sandbox.url, 100, `${receiver.url}/hook`, 'locked');
  await waitFor(() => receiver.received.length >= 8 || undefined, 'attempts in flight');
  await sandbox.store.batch.committed();
  const holder = await holdWriteLock(db, 1500);
  cleanups.push(() => holder.kill());
  hold = false;
  await holder.released;
  await waitFor(() => (sandbox.worker.busy === 0 && eventIds(receiver.received).size === 100 ? true : undefined), 'all 100 events', 30_000);
  await waitFor(
    () => (sandbox.db.prepare("SELECT COUNT(*) FROM deliveries WHERE status = 'succeeded'").pluck().get() === 100 ? true : undefined),
    'every delivery succeeded',
    30_000,
  );
  // Answers that came during the lock were recorded once it was gone, or sent again after their lease.
  expect(errors.every((line) => /database is locked/.test(line))).toBe(true);
});

it('close() with attempts in flight waits for their answers and records them', async () => {
  let hold = true;
  const receiver = await startFakeMerchant({ answer: () => waitFor(() => !hold || undefined, 'close()', 20_000).then(() => 200) });
  cleanups.push(receiver.close);
  const { sandbox, db } = await startBuilt('close');
  await pay(sandbox.url, 8, `${receiver.url}/hook`, 'close');
  await waitFor(() => receiver.received.length === 8 || undefined, 'eight attempts in flight');
  const closing = sandbox.close();
  hold = false;
  await closing;
  const store = new Database(db, { readonly: true });
  expect(store.prepare("SELECT COUNT(*) FROM deliveries WHERE status = 'succeeded'").pluck().get()).toBe(8);
  expect(store.prepare('SELECT COUNT(*) FROM delivery_attempts').pluck().get()).toBe(8);
  store.close();
});

it("startSandbox()'s close() leaves no thread and no handle: the process exits by itself", async () => {
  const receiver = await startFakeMerchant();
  cleanups.push(receiver.close);
  const script = `
    const { startSandbox } = await import(${JSON.stringify(DIST)});
    const sandbox = await startSandbox();
    const res = await fetch(sandbox.url + '/api/s2s', { method: 'POST', headers: { 'content-type': 'application/json' }, body: process.argv[1] });
    if (res.status !== 200) throw new Error('create answered ' + res.status);
    await sandbox.waitForDelivery({ status: 'succeeded' });
    console.log(sandbox.server.worker.activeSender.mode);
    await sandbox.close();
  `;
  const body = JSON.stringify(s2sBody({ ccno: '4242424242424242', webhook_url: `${receiver.url}/hook` }));
  const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, ['--input-type=module', '-e', script, body], { timeout: 20_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (child.exitCode ?? -1) : 0, stdout, stderr }),
    );
  });
  expect(out.stderr).toBe('');
  expect(out.stdout.trim()).toBe('thread');
  expect(out.code).toBe(0);
  expect(receiver.received).toHaveLength(1);
});
