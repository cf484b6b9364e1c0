// The webhook bodies a sandbox sends, held to the document's `webhooks` the way answers are held to
// its paths: each JSON event and the S2S form webhook is validated (conformance.ts), and the suite's
// fake merchant (fake-merchant.ts) checks every delivery it receives, so a body that drifts from the
// document fails the test that received it.
import { describe, expect, it } from 'vitest';
import { conformance } from '../helpers/conformance.js';
import { takeWebhookViolations } from '../helpers/fake-merchant.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { AUTH } from '../helpers/payments-api.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { waitFor } from '../helpers/wait-for.js';

const env = useSandboxWithMerchant({ each: true });

/** Waits until the fake merchant holds `count` requests. */
async function received(count: number) {
  await waitFor(() => env.merchant.received.length >= count, `${count} webhooks at the fake merchant`);
  return env.merchant.received;
}

describe('the webhooks section describes what the sandbox sends', () => {
  it('a /v1/ payment, refund and chargeback, an S2S transaction and a settlement: each JSON body validates, data.object names the family', async () => {
    const { http, merchant } = env;
    expect((await http.post('/v1/webhook_endpoints', { url: `${merchant.url}/hook`, events: ['*'] }, AUTH)).status).toBeLessThan(300);
    const payment = await http.post('/v1/payments', { amount: 1050, currency: 'EUR' }, AUTH);
    expect((await http.post('/v1/refunds', { payment_id: payment.json.id, amount: 100 }, AUTH)).status).toBeLessThan(300);
    // The refund succeeds 2 s (sandbox time) later.
    await http.post('/_sandbox/clock/advance', { duration: '5s' });
    expect((await http.post('/_sandbox/chargebacks', { payment_id: payment.json.id, amount: 200 })).status).toBe(201);
    expect((await http.post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: `${merchant.url}/s2s` }))).status).toBe(200);
    expect((await http.post('/_sandbox/settlements', { pay_after: '0s' })).status).toBe(200);
    // 5 /v1/ events, the S2S payment's form webhook and its JSON copy, and the settlement's two.
    const bodies = await received(9);
    const json = bodies.filter((r) => r.path === '/hook').map((r) => JSON.parse(r.body) as { event: string; data: { object: string } });
    expect(json.map((e) => `${e.event} ${e.data.object}`)).toEqual(
      expect.arrayContaining([
        'payment.authorized payment',
        'payment.captured payment',
        'refund.created refund',
        'refund.succeeded refund',
        'chargeback.created chargeback',
        'payment.authorized s2s_transaction',
        'settlement.created settlement',
        'settlement.paid settlement',
      ]),
    );
    for (const r of bodies) expect(conformance().webhookProblems(String(r.headers['content-type']), r.body), r.body).toEqual([]);
    // The S2S form webhook keeps exactly the spec §6.1 fields.
    const form = bodies.find((r) => r.path === '/s2s')!;
    expect([...new URLSearchParams(form.body).keys()].sort()).toEqual([
      'bill_amt',
      'bill_currency',
      'ccno',
      'mop',
      'order_status',
      'reference',
      'response',
      'status',
      'transID',
    ]);
  });

  it('refuses bodies the document does not describe: a missing or wrong data.object, an extra form field, an unknown event', () => {
    const data = {
      object: 'payment',
      payment_id: 'pay_1',
      status: 'captured',
      amount: 1050,
      currency: 'EUR',
      reference: null,
      amount_captured: 1050,
      amount_refunded: 0,
      metadata: {},
    };
    const envelope = (d: object, event = 'payment.captured') =>
      JSON.stringify({ event, id: 'evt_1', data: d, created_at: '2026-01-15T12:00:00.000Z' });
    expect(conformance().webhookProblems('application/json', envelope(data))).toEqual([]);
    const { object: _object, ...untagged } = data;
    expect(conformance().webhookProblems('application/json', envelope(untagged))).not.toEqual([]);
    expect(conformance().webhookProblems('application/json', envelope({ ...data, object: 'refund' }))).not.toEqual([]);
    expect(conformance().webhookProblems('application/json', envelope({ ...data, amount_captured: '1050' }))).not.toEqual([]);
    expect(conformance().webhookProblems('application/json', envelope(data, 'payment.shipped'))).toEqual([
      expect.stringContaining('not in the document'),
    ]);
    const fields = {
      transID: '1',
      reference: 'r',
      order_status: '1',
      status: 'Test Approved',
      bill_amt: '10.50',
      bill_currency: 'EUR',
      mop: 'VISA',
      ccno: '424242XXXXXX4242',
      response: 'ok',
    };
    expect(conformance().webhookProblems('application/x-www-form-urlencoded', new URLSearchParams(fields).toString())).toEqual([]);
    expect(
      conformance().webhookProblems(
        'application/x-www-form-urlencoded',
        new URLSearchParams({ ...fields, object: 's2s_transaction' }).toString(),
      ),
    ).not.toEqual([]);
  });

  it('the fake merchant records a delivery whose body the document does not describe', async () => {
    const { merchant } = env;
    await fetch(`${merchant.url}/hook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sandbox-delivery-id': 'dlv_1' },
      body: JSON.stringify({ event: 'payment.captured', id: 'evt_1', data: {}, created_at: 'now' }),
    });
    await fetch(`${merchant.url}/other`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"not":"a delivery"}' });
    await received(2);
    expect(takeWebhookViolations()).toEqual([expect.stringContaining('webhook payment.captured')]);
  });
});
