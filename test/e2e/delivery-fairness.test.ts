// One slow or dead receiver must not hold every sending slot: deliveries to other URLs go out at
// once. And a sandbox whose receivers never answer still shuts down within the webhook timeout.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { api } from '../helpers/http.js';
import { startSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { takeWebhookViolations } from '../helpers/fake-merchant.js';
import { capturedPaymentData } from '../helpers/event-data.js';
import { waitFor } from '../helpers/wait-for.js';

/** A receiver that accepts connections and never answers (a hung merchant). */
async function startHungReceiver() {
  const held: http.ServerResponse[] = [];
  const server = http.createServer((_req, res) => held.push(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    held,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function pay(sandbox: RunningServer, webhookUrl: string) {
  const res = await api(sandbox.url).post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: webhookUrl }));
  expect(res.status).toBe(200);
}

it('a healthy receiver gets its webhook while 40 deliveries hang on another URL', async () => {
  const hung = await startHungReceiver();
  cleanups.push(hung.close);
  const { sandbox, merchant: healthy, close } = await startSandboxWithMerchant({ flags: { retry: 'none', webhookTimeout: '15s' } });
  cleanups.push(close);

  for (let i = 0; i < 40; i++) await pay(sandbox, hung.url);
  // The hung URL holds at most its per-URL share of the 32 slots.
  await waitFor(() => hung.held.length >= 8, 'the hung receiver to hold its connections');
  const sentAt = Date.now();
  await pay(sandbox, `${healthy.url}/hook`);
  await waitFor(() => healthy.received.length === 1, 'the healthy receiver to get its webhook', 10_000);
  // Well inside the 15 s timeout that frees the hung slots: it did not wait for them (however
  // slowly a loaded machine sends it; it takes milliseconds on an idle one).
  expect(Date.now() - sentAt).toBeLessThan(10_000);
  expect(hung.held.length).toBe(8);
});

it('a dead receiver with per-order paths holds one share of the slots: another origin gets its webhook at once', async () => {
  const hung = await startHungReceiver();
  cleanups.push(hung.close);
  const { sandbox, merchant: healthy, close } = await startSandboxWithMerchant({ flags: { retry: 'none', webhookTimeout: '15s' } });
  cleanups.push(close);

  // More due deliveries to the dead origin than four claim windows (4 x 24 rows): the healthy one
  // is due after all of them, so the claim must walk past the backlog to find it.
  for (let i = 1; i <= 150; i++) await pay(sandbox, `${hung.url}/${i}`);
  await waitFor(() => hung.held.length >= 8, 'the dead receiver to hold its connections');
  const sentAt = Date.now();
  await pay(sandbox, `${healthy.url}/hook`);
  await waitFor(() => healthy.received.length === 1, 'the healthy receiver to get its webhook', 10_000);
  // Well inside the 15 s timeout the dead origin's attempts are still waiting out.
  expect(Date.now() - sentAt).toBeLessThan(10_000);
  const hanging = hung.held.filter((res) => !res.socket?.destroyed).length;
  expect(hanging).toBeGreaterThan(0);
  expect(hanging).toBeLessThanOrEqual(8);
});

it('close() returns within the webhook timeout while receivers never answer', async () => {
  const hung = await startHungReceiver();
  cleanups.push(hung.close);
  const sandbox = await startTestServer({ retry: 'dev', webhookTimeout: '1s' });
  for (let i = 0; i < 20; i++) await pay(sandbox, hung.url);
  await waitFor(() => hung.held.length >= 8, 'attempts in flight');
  const started = Date.now();
  await sandbox.close();
  // Bounded by the 1 s timeout, not by receivers that never answer (a margin for a loaded machine).
  expect(Date.now() - started).toBeLessThan(10_000);
});

it("300 receivers that accept and never answer: a healthy receiver's webhook is sent while all 300 still hang", async () => {
  const hung = await Promise.all(Array.from({ length: 300 }, () => startHungReceiver()));
  // A time limit far longer than the test: no hung attempt ends and frees a slot before the healthy one goes.
  const { sandbox, merchant: healthy, close } = await startSandboxWithMerchant({ flags: { retry: 'none', webhookTimeout: '60s' } });
  cleanups.push(close);
  // Closed first (cleanups run last first): their cut connections end the attempts close() waits for.
  cleanups.push(async () => void (await Promise.all(hung.map((h) => h.close()))));
  const publish = (url: string, i: number) =>
    sandbox.services.events.publish({
      merchantId: 'mer_sandbox',
      resourceId: `pay_fair_${i}`,
      event: { type: 'payment.captured', data: capturedPaymentData(`pay_fair_${i}`) },
      webhook: { format: 'envelope', url },
    });
  sandbox.store.tx(() => {
    for (const [i, h] of hung.entries()) publish(h.url, i);
  });
  await waitFor(() => hung.every((h) => h.held.length === 1), 'every hung receiver to hold its attempt', 20_000);
  sandbox.store.tx(() => publish(`${healthy.url}/hook`, 300));
  await waitFor(() => healthy.received.length === 1, 'the healthy receiver to get its webhook', 10_000);
  // Sent beside the 300 attempts in flight, none of which has ended: it waited for no slot.
  expect(hung.every((h) => h.held.length === 1 && !h.held[0]!.writableEnded)).toBe(true);
  // The events carry a stand-in payload, not the documented one.
  takeWebhookViolations();
});
