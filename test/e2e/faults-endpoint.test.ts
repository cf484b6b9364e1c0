// Fault rules scoped to a registered webhook endpoint: they shape that endpoint's deliveries only,
// and an endpoint id that names no endpoint is refused instead of being stored to match nothing.
import { afterEach, expect, it } from 'vitest';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { s2sBody, CREDS } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

/** The fixture's merchant receives the endpoint's webhooks; a second receiver gets the payment's own. */
const env = useSandboxWithMerchant({ each: true, flags: { retry: 'none' } });
let paymentReceiver: FakeMerchant | undefined;

afterEach(async () => {
  await paymentReceiver?.close();
  paymentReceiver = undefined;
});

it("endpoint=<id>:duplicate=1 doubles that endpoint's webhook and leaves the payment's webhook_url alone", async () => {
  const { http, sandbox, merchant: endpointReceiver } = env;
  paymentReceiver = await startFakeMerchant();
  const endpoint = await http.post(
    '/v1/webhook_endpoints',
    { url: `${endpointReceiver.url}/hook`, events: ['*'] },
    { authorization: `Bearer ${CREDS.apiKey}` },
  );
  expect(endpoint.status).toBe(200);
  const set = await http.post('/_sandbox/faults', { spec: `endpoint=${endpoint.json.id}:duplicate=1` });
  expect(set.status).toBe(201);
  expect(set.json.added).toMatchObject([{ scope: 'endpoint', target: endpoint.json.id, fault: 'duplicate', value: '1' }]);

  const payment = await http.post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: `${paymentReceiver!.url}/s2s` }));
  expect(payment.status).toBe(200);
  const transId = payment.json.transID as string;

  await waitFor(() => {
    const events = sandbox.store.events.list({ resourceId: transId, limit: 10 });
    const deliveries = events.flatMap((e) => sandbox.store.deliveries.list({ eventId: e.id, limit: 10 }));
    return deliveries.length >= 2 && deliveries.every((d) => d.status === 'succeeded');
  }, 'both deliveries to finish');
  const toEndpoint = endpointReceiver.received.filter((r) => r.body.includes(transId));
  expect(toEndpoint).toHaveLength(2);
  expect(new Set(toEndpoint.map((r) => r.headers['x-sandbox-event-id'])).size).toBe(1);
  expect(paymentReceiver!.received.filter((r) => r.body.includes(transId))).toHaveLength(1);
});

it('refuses an endpoint= rule naming no webhook endpoint with a 404 on spec, and stores nothing', async () => {
  const { http } = env;
  const refused = await http.post('/_sandbox/faults', { spec: 'endpoint=we_nope:duplicate=1' });
  expect(refused.status).toBe(404);
  expect(refused.json.error).toMatchObject({ code: 'resource_missing', param: 'spec' });
  expect(refused.json.error.message).toContain('we_nope');
  expect((await http.get('/_sandbox/faults')).json.data).toEqual([]);
});
