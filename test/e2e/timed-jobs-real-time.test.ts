// Timed jobs fire by themselves in an idle sandbox, in real time, with no clock advance: the
// chargeback test card opens its chargeback and the slow SEPA test IBAN settles once their
// delays (shortened here with --chargeback-delay and --sepa-delay) have passed.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { CREDS, s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

/** Short enough for a quick test, long enough that "at once" and "on time" differ. */
const DELAY_MS = 400;
/** Far more than the delay, far less than the 60 s the timer sleeps at most: a job left unarmed misses it. */
const DEADLINE_MS = 10_000;

let sandbox: RunningServer;
let merchant: FakeMerchant;

beforeEach(async () => {
  merchant = await startFakeMerchant();
  sandbox = await startTestServer({ chargebackDelay: `${DELAY_MS}ms`, sepaDelay: `${DELAY_MS}ms` });
});
afterEach(async () => {
  await sandbox.close();
  await merchant.close();
});

const bearer = { authorization: `Bearer ${CREDS.apiKey}` };

async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const form = typeof body === 'string';
  const res = await fetch(sandbox.url + path, {
    method,
    redirect: 'manual',
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json', ...headers },
    body: body === undefined ? undefined : form ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined };
}

it('S2S: test card 4000000000000259 is charged back (order_status 11) after --chargeback-delay, with no clock advance', async () => {
  const created = await send('POST', '/api/s2s', s2sBody({ ccno: '4000000000000259', webhook_url: `${merchant.url}/s2s` }));
  expect(created.json.order_status).toBe('25');
  const approvedAt = Date.now();
  const hook = await waitFor(() => merchant.at('/s2s').find((h) => new URLSearchParams(h.body).get('order_status') === '11'), 'the Chargeback webhook', DEADLINE_MS);
  expect(hook.at - approvedAt).toBeGreaterThanOrEqual(DELAY_MS - 50);
  expect(new URLSearchParams(hook.body).get('transID')).toBe(created.json.transID);
  const shown = await send('GET', new URL(created.json.authstatus).pathname);
  expect(shown.json).toMatchObject({ order_status: '11', status: 'Chargeback' });
});

it('checkout: the slow SEPA IBAN AT321904300235473204 settles (captured) after --sepa-delay, with no clock advance', async () => {
  const session = await send('POST', '/v1/checkout/sessions', { amount: 1050, currency: 'EUR', methods: ['sepa'], return_url: 'https://shop.example/return', webhook_url: `${merchant.url}/v1` }, bearer);
  expect(session.status).toBe(200);
  const token = new URL(session.json.url).pathname.split('/').pop()!;
  const page = await send('GET', `/pay/${token}?method=sepa`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
  const paid = await send('POST', `/pay/${token}/sepa`, new URLSearchParams({ csrf, iban: 'AT32 1904 3002 3547 3204', holder: 'Jane Doe' }).toString());
  expect(paid.status).toBe(303);
  const submittedAt = Date.now();
  const view = async () => (await send('GET', `/v1/checkout/sessions/${session.json.id}`, undefined, bearer)).json;
  expect(await view()).toMatchObject({ status: 'complete', payment_status: 'processing' });
  await waitFor(async () => (await view()).payment_status === 'captured', 'the SEPA debit to settle', DEADLINE_MS);
  expect(Date.now() - submittedAt).toBeGreaterThanOrEqual(DELAY_MS - 50);
  await waitFor(() => merchant.at('/v1').find((h) => JSON.parse(h.body).event === 'payment.captured'), 'the payment.captured webhook', DEADLINE_MS);
});
