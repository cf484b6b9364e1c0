// Fault rules scoped to a registered webhook endpoint: they shape that endpoint's deliveries only,
// and an endpoint id that names no endpoint is refused instead of being stored to match nothing.
import { afterEach, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { s2sBody, CREDS, startTestServer } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

let sandbox: RunningServer | undefined;
let endpointReceiver: FakeMerchant | undefined;
let paymentReceiver: FakeMerchant | undefined;

afterEach(async () => {
  await sandbox?.close();
  await endpointReceiver?.close();
  await paymentReceiver?.close();
  sandbox = endpointReceiver = paymentReceiver = undefined;
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${sandbox!.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as any };
}

async function start() {
  endpointReceiver = await startFakeMerchant();
  paymentReceiver = await startFakeMerchant();
  sandbox = await startTestServer({ retry: 'none' });
}

it('endpoint=<id>:duplicate=1 doubles that endpoint\'s webhook and leaves the payment\'s webhook_url alone', async () => {
  await start();
  const endpoint = await call('POST', '/v1/webhook_endpoints', { url: `${endpointReceiver!.url}/hook`, events: ['*'] }, { authorization: `Bearer ${CREDS.apiKey}` });
  expect(endpoint.status).toBe(200);
  const set = await call('POST', '/_sandbox/faults', { spec: `endpoint=${endpoint.json.id}:duplicate=1` });
  expect(set.status).toBe(201);
  expect(set.json.added).toMatchObject([{ scope: 'endpoint', target: endpoint.json.id, fault: 'duplicate', value: '1' }]);

  const payment = await call('POST', '/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: `${paymentReceiver!.url}/s2s` }));
  expect(payment.status).toBe(200);
  const transId = payment.json.transID as string;

  await waitFor(() => {
    const events = sandbox!.store.events.list({ resourceId: transId, limit: 10 });
    const deliveries = events.flatMap((e) => sandbox!.store.deliveries.list({ eventId: e.id, limit: 10 }));
    return deliveries.length >= 2 && deliveries.every((d) => d.status === 'succeeded');
  }, 'both deliveries to finish');
  const toEndpoint = endpointReceiver!.received.filter((r) => r.body.includes(transId));
  expect(toEndpoint).toHaveLength(2);
  expect(new Set(toEndpoint.map((r) => r.headers['x-sandbox-event-id'])).size).toBe(1);
  expect(paymentReceiver!.received.filter((r) => r.body.includes(transId))).toHaveLength(1);
});

it('refuses an endpoint= rule naming no webhook endpoint with a 404 on spec, and stores nothing', async () => {
  await start();
  const refused = await call('POST', '/_sandbox/faults', { spec: 'endpoint=we_nope:duplicate=1' });
  expect(refused.status).toBe(404);
  expect(refused.json.error).toMatchObject({ code: 'resource_missing', param: 'spec' });
  expect(refused.json.error.message).toContain('we_nope');
  expect((await call('GET', '/_sandbox/faults')).json.rules).toEqual([]);
});
