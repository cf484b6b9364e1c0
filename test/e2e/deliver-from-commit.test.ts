// A new delivery goes to the worker from the commit that wrote it, leased at its insert, instead of
// being read back and claimed (webhooks/outbox.ts, webhooks/delivery/worker.ts). What that could
// break: a delivery whose unit was undone must never be sent; one written in the same batch next
// to it is sent once; a transaction of its own (an import, a reset) since the hand-over sends
// nothing the reset removed; and a sandbox stopped with deliveries handed over but not yet sent
// sends them after a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { startFakeMerchant, takeWebhookViolations, type FakeMerchant } from '../helpers/fake-merchant.js';
import { startTestServer } from '../helpers/test-sandbox.js';
import { capturedPaymentData } from '../helpers/event-data.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'deliver-from-commit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  // The events here carry a stand-in payload, not the documented one.
  takeWebhookViolations();
});

async function setup(flags = {}): Promise<{ sandbox: RunningServer; merchant: FakeMerchant }> {
  const merchant = await startFakeMerchant();
  const sandbox = await startTestServer({ retry: 'none', ...flags });
  cleanups.push(merchant.close, () => sandbox.close());
  return { sandbox, merchant };
}

/** Publishes a captured-payment event whose webhook goes to `url`, in the caller's transaction. */
function publish(sandbox: RunningServer, url: string, resourceId: string) {
  return sandbox.services.events.publish({
    merchantId: 'mer_sandbox',
    resourceId,
    event: { type: 'payment.captured', data: capturedPaymentData(resourceId) },
    webhook: { format: 'envelope', url },
  });
}

const deliveryRow = (sandbox: RunningServer, resourceId: string) =>
  sandbox.db
    .prepare(
      'SELECT d.status, d.attempts, d.lease_until AS leaseUntil FROM deliveries d JOIN events e ON e.id = d.event_id WHERE e.resource_id = ?',
    )
    .get(resourceId) as { status: string; attempts: number; leaseUntil: number | null } | undefined;

it('a unit that is undone sends nothing; the unit committed beside it in the same batch is sent once and recorded', async () => {
  const { sandbox, merchant } = await setup();
  const { store } = sandbox;
  store.tx(() => publish(sandbox, `${merchant.url}/kept`, 'pay_kept'));
  expect(() =>
    store.tx(() => {
      publish(sandbox, `${merchant.url}/undone`, 'pay_undone');
      throw new Error('the handler failed after publishing');
    }),
  ).toThrow('the handler failed');
  // Both units were in one batch, and the kept delivery was written already leased to the worker.
  expect(store.batch.pending).toBe(true);
  expect(deliveryRow(sandbox, 'pay_kept')!.leaseUntil).toBeGreaterThan(sandbox.clock.now());
  expect(deliveryRow(sandbox, 'pay_undone')).toBeUndefined();
  await waitFor(() => deliveryRow(sandbox, 'pay_kept')!.status === 'succeeded', 'the kept delivery to be recorded');
  expect(merchant.received.map((r) => r.path)).toEqual(['/kept']);
  expect(deliveryRow(sandbox, 'pay_kept')).toEqual({ status: 'succeeded', attempts: 1, leaseUntil: null });
  // Nothing more comes: the delivery was not claimed and sent a second time.
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(merchant.received).toHaveLength(1);
});

it('a delivery handed over, then removed by a reset before it was sent, is not sent', async () => {
  const { sandbox, merchant } = await setup();
  sandbox.store.tx(() => publish(sandbox, `${merchant.url}/before-reset`, 'pay_before'));
  // The reset's own transaction commits the open batch first, which hands the delivery over, then
  // empties the tables before the worker's pass (a microtask later): that pass must not send it.
  await sandbox.services.snapshot.reset();
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(merchant.received).toEqual([]);
  expect(sandbox.db.prepare('SELECT COUNT(*) FROM deliveries').pluck().get()).toBe(0);
});

it('deliveries handed over but not sent when the sandbox stops are sent after a restart on the same file', async () => {
  const db = join(dir, 'restart.db');
  const merchant = await startFakeMerchant();
  cleanups.push(merchant.close);
  const first = await startTestServer({ db, retry: 'none' });
  first.store.tx(() => {
    for (let i = 0; i < 5; i++) publish(first, `${merchant.url}/r${i}`, `pay_r${i}`);
  });
  // Stop before the batch commits: close() flushes it (the hand-over comes after the worker stopped).
  await first.close();
  const sentBefore = merchant.received.length;
  const second = await startTestServer({ db, retry: 'none' });
  cleanups.push(() => second.close());
  await waitFor(() => merchant.received.length >= 5, 'every delivery to arrive after the restart');
  expect(new Set(merchant.received.map((r) => r.path)).size).toBe(5);
  expect(merchant.received.length - sentBefore).toBeGreaterThan(0);
});
