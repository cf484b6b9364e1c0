// Timed jobs fire by themselves in an idle sandbox, in real time, with no clock advance: the
// chargeback test card opens its chargeback and the slow SEPA test IBAN settles once their
// delays (shortened here with --chargeback-delay and --sepa-delay) have passed.
import { expect, it } from 'vitest';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { CREDS, s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

/** Short enough for a quick test, long enough that "at once" and "on time" differ. */
const DELAY_MS = 400;
/** Far more than the delay, far less than the 60 s the timer sleeps at most: a job left unarmed misses it. */
const DEADLINE_MS = 10_000;

const env = useSandboxWithMerchant({ each: true, flags: { chargebackDelay: `${DELAY_MS}ms`, sepaDelay: `${DELAY_MS}ms` } });
const bearer = { authorization: `Bearer ${CREDS.apiKey}` };

it('S2S: test card 4000000000000259 is charged back (order_status 11) after --chargeback-delay, with no clock advance', async () => {
  // Taken before the request: the approval (and so the job's due time) comes after it, however
  // long the answer then takes to arrive on a busy machine.
  const sentAt = Date.now();
  const created = await env.http.post('/api/s2s', s2sBody({ ccno: '4000000000000259', webhook_url: `${env.merchant.url}/s2s` }));
  expect(created.json.order_status).toBe('25');
  const hook = await waitFor(
    () => env.merchant.at('/s2s').find((h) => new URLSearchParams(h.body).get('order_status') === '11'),
    'the Chargeback webhook',
    DEADLINE_MS,
  );
  expect(hook.at - sentAt).toBeGreaterThanOrEqual(DELAY_MS - 5); // 5 ms: timers round to the millisecond
  expect(new URLSearchParams(hook.body).get('transID')).toBe(created.json.transID);
  const shown = await env.http.get(new URL(created.json.authstatus).pathname);
  expect(shown.json).toMatchObject({ order_status: '11', status: 'Chargeback' });
});

it('checkout: the slow SEPA IBAN AT321904300235473204 settles (captured) after --sepa-delay, with no clock advance', async () => {
  const session = await env.http.post(
    '/v1/checkout/sessions',
    { amount: 1050, currency: 'EUR', methods: ['sepa'], return_url: 'https://shop.example/return', webhook_url: `${env.merchant.url}/v1` },
    bearer,
  );
  expect(session.status).toBe(200);
  const token = new URL(session.json.url).pathname.split('/').pop()!;
  const page = await env.http.get(`/pay/${token}?method=sepa`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
  const submittedAt = Date.now();
  const paid = await env.http.postForm(`/pay/${token}/sepa`, { csrf, iban: 'AT32 1904 3002 3547 3204', holder: 'Jane Doe' });
  expect(paid.status).toBe(303);
  const view = async () => (await env.http.get(`/v1/checkout/sessions/${session.json.id}`, bearer)).json;
  expect(await view()).toMatchObject({ status: 'complete', payment_status: 'processing' });
  await waitFor(async () => (await view()).payment_status === 'captured', 'the SEPA debit to settle', DEADLINE_MS);
  expect(Date.now() - submittedAt).toBeGreaterThanOrEqual(DELAY_MS - 5);
  await waitFor(
    () => env.merchant.at('/v1').find((h) => JSON.parse(h.body).event === 'payment.captured'),
    'the payment.captured webhook',
    DEADLINE_MS,
  );
});
