// What the delivery worker reads of a receiver's answer: the status decides the attempt, and at most
// the first 16 KiB of the body is read and logged. A receiver answering 200 at once with an endless
// body used to hold the attempt until the time limit and have it recorded as a timeout; a status
// that came in time stands even when the body is still arriving at the limit.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server/start-server.js';
import { startFakeMerchant } from '../helpers/fake-merchant.js';
import { s2sBody, senderThread } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

it('a 200 with an endless body is a succeeded attempt whose logged answer is the first 16 KiB', async () => {
  const merchant = await startFakeMerchant({ endless: true });
  cleanups.push(merchant.close);
  const sandbox = await startServer(loadConfig({ port: 0, db: ':memory:', quiet: true, webhookTimeout: '3s' }, {}), senderThread());
  cleanups.push(sandbox.close);

  const created = await fetch(`${sandbox.url}/api/s2s`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(s2sBody({ ccno: '4242424242424242', webhook_url: `${merchant.url}/hook` })),
  });
  expect(created.status).toBe(200);
  const [delivery] = await waitFor(() => {
    const settled = sandbox.store.deliveries.list({ limit: 10 }).filter((d) => d.status !== 'pending' || d.attempts > 0);
    return settled.length > 0 ? settled : undefined;
  }, 'the first attempt to be recorded');
  expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, lastStatus: 200, lastError: null });
  const [attempt] = sandbox.store.deliveries.attempts(delivery!.id);
  expect(attempt).toMatchObject({ responseStatus: 200, errorKind: null });
  expect(attempt!.responseBody).toBe('x'.repeat(16 * 1024));
});

it('a 200 whose body stalls before 16 KiB is graded by its status at the time limit, not as a timeout', async () => {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).write('partial'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const sandbox = await startServer(loadConfig({ port: 0, db: ':memory:', quiet: true, webhookTimeout: '1s' }, {}), senderThread());
  cleanups.push(sandbox.close);

  const created = await fetch(`${sandbox.url}/api/s2s`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(
      s2sBody({ ccno: '4242424242424242', webhook_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` }),
    ),
  });
  expect(created.status).toBe(200);
  const [delivery] = await waitFor(() => {
    const settled = sandbox.store.deliveries.list({ limit: 10 }).filter((d) => d.attempts > 0);
    return settled.length > 0 ? settled : undefined;
  }, 'the first attempt to be recorded');
  expect(delivery).toMatchObject({ status: 'succeeded', lastStatus: 200 });
  expect(sandbox.store.deliveries.attempts(delivery!.id)[0]).toMatchObject({
    responseStatus: 200,
    responseBody: 'partial',
    errorKind: null,
  });
});
