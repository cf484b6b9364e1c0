// GET /_sandbox/payments/{id}/timeline over app.request(): one payment's story in order for each
// path (frictionless, a 3-D Secure challenge approved and failed, a refund, a chargeback), found by
// the payment's id or by its refund's or chargeback's, and 404 naming the id for anything else.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/json.js';
import { csrfOf } from '../helpers/seed-objects.js';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

const bearer = { authorization: `Bearer ${CREDS.apiKey}` };
const card = (number: string) => ({ number, exp_month: 12, exp_year: 2030, cvc: '123' });

async function timeline(id: string): Promise<Json> {
  const res = await sb.get(`/_sandbox/payments/${id}/timeline`);
  expect(res.status, res.text).toBe(200);
  return res.json;
}

/** The items as "kind: title" lines, the states with their cause's kind. */
const story = (t: Json): string[] =>
  t.items.map((i: Json) => (i.kind === 'state' ? `state: ${i.title} [${i.cause.kind}]` : `${i.kind}: ${i.title}`));

describe('GET /_sandbox/payments/{id}/timeline', () => {
  it('a frictionless /v1/ payment: the create, the state it reached by its test card, in order, the sandbox times ascending', async () => {
    const pay = await sb.post('/v1/payments', { amount: 1050, currency: 'EUR', card: card('4242424242424242') }, bearer);
    expect(pay.status, pay.text).toBe(200);
    await sb.get(`/v1/payments/${pay.json.id}`, bearer);
    const t = await timeline(pay.json.id);
    expect(t.payment).toMatchObject({ id: pay.json.id, family: 'v1', merchant_id: 'mer_sandbox', amount: 1050, currency: 'EUR' });
    const lines = story(t);
    // Every change right after the request that made it, though all share one sandbox millisecond.
    expect(lines.slice(0, 2)).toEqual(['request: POST /v1/payments → 200', 'state: payment.authorized → authorized [test_card]']);
    expect(
      lines.filter((l) => l.startsWith('state:')).every((l) => l.endsWith('[test_card]')),
      lines.join('\n'),
    ).toBe(true);
    expect(lines.at(-1)).toBe(`request: GET /v1/payments/${pay.json.id} → 200`);
    const state = t.items.find((i: Json) => i.kind === 'state');
    expect(state.cause.text).toMatch(/^test card 424242…4242/);
    expect(state.cause.request_id).toBe(t.items[0].request.id);
    const times = t.items.map((i: Json) => i.at);
    expect([...times].sort()).toEqual(times);
    expect(t.journal_complete, JSON.stringify([t.payment, t.items[0].at])).toBe(true);
  });

  it.each([
    ['approved', '123456', /Approved/],
    ['failed', '000000', /Declined|Failed|Cancelled/],
  ])(
    'an S2S payment with a 3-D Secure challenge %s: the create, the page visit and the choice that decided it',
    async (_n, otp, status) => {
      const res = await sb.post('/api/s2s', s2sBody({ ccno: '4000000000003220' }));
      expect(res.status, res.text).toBe(200);
      const path = new URL(res.json.authurl).pathname;
      const csrf = await csrfOf(sb, path);
      const choice = await sb.postForm(path, { csrf, otp, action: 'submit' });
      expect(choice.status).toBeLessThan(400);
      const t = await timeline(res.json.transID);
      const lines = story(t);
      expect(lines[0]).toBe('request: POST /api/s2s → 200');
      expect(lines).toContain(`request: opens GET ${path} → 200`);
      const decided = t.items.filter((i: Json) => i.kind === 'state' && i.cause.kind === 'page');
      expect(decided.length).toBeGreaterThan(0);
      expect(decided[0].cause.text).toContain(`otp=${otp}`);
      expect(decided[0].cause.text).not.toContain(csrf);
      expect(decided.map((i: Json) => i.status).join(' ')).toMatch(status);
      // The choice came after the visit.
      const visit = lines.indexOf(`request: opens GET ${path} → 200`);
      expect(lines.findIndex((l) => l.includes('[page]'))).toBeGreaterThan(visit);
    },
  );

  it("a refund and a chargeback: found by the payment's id or by theirs, each change with what caused it", async () => {
    const pay = await sb.post('/v1/payments', { amount: 2000, currency: 'EUR', card: card('4242424242424242') }, bearer);
    const refund = await sb.post('/v1/refunds', { payment_id: pay.json.id, amount: 500 }, bearer);
    expect(refund.status, refund.text).toBe(200);
    const chargeback = await sb.post('/_sandbox/chargebacks', { payment_id: pay.json.id });
    expect(chargeback.status, chargeback.text).toBe(201);
    const t = await timeline(refund.json.id);
    expect(t.payment.id).toBe(pay.json.id);
    expect(t.refunds.map((r: Json) => r.id)).toEqual([refund.json.id]);
    expect(t.chargebacks.map((c: Json) => c.id)).toEqual([chargeback.json.id]);
    const lines = story(t);
    expect(lines).toContain('request: POST /v1/refunds → 200');
    expect(lines).toContain('request: control API: POST /_sandbox/chargebacks → 201');
    const refundState = t.items.find((i: Json) => i.kind === 'state' && i.event?.type === 'refund.created');
    expect(refundState, lines.join('\n')).toBeDefined();
    expect(refundState.cause).toMatchObject({ kind: 'api', text: 'POST /v1/refunds' });
    const disputed = t.items.find((i: Json) => i.kind === 'state' && i.event?.type === 'chargeback.created');
    expect(disputed.cause.kind).toBe('control_api');
    expect(lines.indexOf('request: POST /v1/refunds → 200')).toBeLessThan(
      lines.indexOf('request: control API: POST /_sandbox/chargebacks → 201'),
    );
    expect((await timeline(chargeback.json.id)).payment.id).toBe(pay.json.id);
  });

  it('answers 404 naming the id for something that is not a payment', async () => {
    const res = await sb.get('/_sandbox/payments/pay_nothing/timeline');
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'resource_missing', param: 'id' });
    expect(res.json.error.message).toContain('pay_nothing');
  });
});
