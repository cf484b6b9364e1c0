// The delivery worker never calls the sandbox's own control API. A merchant's webhook endpoint at
// http://127.0.0.1:<port>/_sandbox/chargebacks/<id>/lose made the worker, a loopback caller with no
// Origin, lose another merchant's dispute (no --control-token). Registration refuses such URLs now
// (test/security/webhook-targets.test.ts); one stored before that, or imported from a snapshot,
// is refused here, whatever spelling it uses: each attempt is a failed one, never sent.
import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { api } from '../helpers/http.js';
import { AUTH, paymentBody } from '../helpers/payments-api.js';
import { CREDS, s2sBody, senderThread } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

let sandbox: RunningServer | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

it("an endpoint stored at the control API, however spelled, gets failed attempts that are never sent; the other merchant's dispute stays open", async () => {
  sandbox = await startServer(loadConfig({ port: 0, db: ':memory:', quiet: true, retry: 'none' }, {}), senderThread());
  const client = api(sandbox.url);
  const port = new URL(sandbox.url).port;

  // The other merchant's approved S2S payment, disputed.
  const other = await client.post(
    '/api/s2s',
    s2sBody({ public_key: CREDS.other.publicKey, terNO: CREDS.other.terNO, ccno: '4242424242424242' }),
  );
  expect(other.status).toBe(200);
  const dispute = await client.post('/_sandbox/chargebacks', { transID: other.json.transID });
  expect(dispute.status).toBe(201);

  // mer_sandbox's endpoints, stored at the control API as an older version (or a snapshot) could have them.
  const spellings = [
    `http://127.0.0.1:${port}/_sandbox/chargebacks/${dispute.json.id}/lose`,
    `http://LOCALHOST.:${port}//%5Fsandbox/chargebacks/${dispute.json.id}/lose`,
    `http://2130706433:${port}/_SANDBOX/chargebacks/${dispute.json.id}/lose`,
    `http://[::ffff:127.0.0.1]:${port}/x/%2e%2E/_sandbox/chargebacks/${dispute.json.id}/lose`,
  ];
  for (const url of spellings) {
    const endpoint = await client.post('/v1/webhook_endpoints', { url: 'https://shop.example/hook', events: ['payment.authorized'] }, AUTH);
    expect(endpoint.status).toBe(200);
    const stored = sandbox.store.webhookEndpoints.get(endpoint.json.id)!;
    expect(sandbox.store.webhookEndpoints.update({ ...stored, url })).toBe(true);
  }

  expect((await client.post('/v1/payments', paymentBody(), AUTH)).status).toBe(200);
  const attempted = await waitFor(() => {
    const rows = sandbox!.store.deliveries.list({ limit: 50 }).filter((d) => d.endpointId !== null && d.attempts > 0);
    return rows.length === spellings.length ? rows : undefined;
  }, 'an attempt at every endpoint');
  for (const delivery of attempted) {
    expect(delivery).toMatchObject({ status: 'failed', lastStatus: null });
    const [attempt] = sandbox.store.deliveries.attempts(delivery.id);
    expect(attempt).toMatchObject({ responseStatus: null, errorKind: 'invalid_url', latencyMs: 0 });
    expect(attempt!.errorMessage).toMatch(/^not sent: the URL points at the sandbox's own control API/);
  }
  expect((await client.get(`/_sandbox/chargebacks/${dispute.json.id}`)).json.status).toBe('open');
});
