// The request journal over app.request(): what a request leaves in it (masked), the filters and
// pages of GET /_sandbox/requests, its bound, reset, and expectations with their near misses.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/json.js';
import { createTestSandbox, CREDS, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

const bearer = { authorization: `Bearer ${CREDS.apiKey}` };
const card = (number = '4242424242424242') => ({ number, exp_month: 12, exp_year: 2030, cvc: '737' });

async function pay(body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await sb.post('/v1/payments', { amount: 1050, currency: 'EUR', card: card(), ...body }, { ...bearer, ...headers });
  expect(res.status, res.text).toBe(200);
  return res.json.id as string;
}

const requests = async (query = '') => {
  const res = await sb.get(`/_sandbox/requests${query}`);
  expect(res.status, res.text).toBe(200);
  return res.json.data as Json[];
};

describe('GET /_sandbox/requests', () => {
  it('keeps a create with its answer, masked: card to 6 + 4 digits, no CVV, no API key', async () => {
    const id = await pay({}, { 'idempotency-key': 'order-7' });
    const [entry] = await requests();
    expect(entry).toMatchObject({
      object: 'request',
      surface: 'api',
      method: 'POST',
      path: '/v1/payments',
      status: 200,
      merchant_id: 'mer_sandbox',
      idempotency_key: 'order-7',
      ids: [id],
      response: { type: 'application/json' },
    });
    expect(entry.request.headers.authorization).toBe('Bearer [redacted]');
    expect(JSON.parse(entry.request.body)).toEqual({
      amount: 1050,
      currency: 'EUR',
      card: { ...card('424242******4242'), cvc: '[redacted]' },
    });
    expect(JSON.parse(entry.response.body).id).toBe(id);
    expect(entry.duration_ms).toBeGreaterThanOrEqual(0);
    expect(entry.id).toMatch(/^req_/);
    const text = JSON.stringify(entry);
    for (const secret of ['4242424242424242', '737', CREDS.apiKey]) expect(text).not.toContain(secret);
  });

  it('keeps no card number a double cannot read back: a 19-digit card sent as a bare JSON number', async () => {
    const body = '{"amount":1050,"currency":"EUR","card":{"number":6011000990139424009,"exp_month":12,"exp_year":2030,"cvc":"737"}}';
    const res = await sb.post('/v1/payments', body, { ...bearer, 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    const [entry] = await requests('?path=/v1/payments');
    expect(JSON.parse(entry.request.body).card).toMatchObject({ number: '[redacted]', cvc: '[redacted]' });
    expect(JSON.stringify(entry)).not.toMatch(/60110009901394|737/);
  });

  it('keeps no card number written with dots, in a body or in the answer that names it', async () => {
    const res = await sb.post(
      '/v1/payments',
      { amount: 1050, currency: 'EUR', card: card('4242.4242.4242.4242'), description: 'card 5555.5555.5555.4444' },
      bearer,
    );
    expect(res.status).toBe(400);
    const [entry] = await requests('?path=/v1/payments');
    expect(JSON.parse(entry.request.body)).toMatchObject({ card: { number: '424242******4242' }, description: 'card 555555******4444' });
    expect(JSON.stringify(entry)).not.toMatch(/4242\.4242\.4242\.4242|5555\.5555\.5555\.4444/);
  });

  it('keeps no card number split across a JSON array: each digit masked in its place', async () => {
    const res = await sb.post(
      '/v1/payments',
      { amount: 1050, currency: 'EUR', card: { ...card('x'), number: ['4242', '4242', '4242', '4242'] } },
      bearer,
    );
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/card\.number/);
    const [entry] = await requests('?path=/v1/payments');
    expect(JSON.parse(entry.request.body).card.number).toEqual(['4242', '42**', '****', '4242']);
    expect(JSON.stringify(entry).replace(/\D/g, '')).not.toContain('4242424242424242');
    // The same as a form field given in parts, to an endpoint that refuses a form.
    const form = await sb.post('/api/s2s', 'ccno=5555&ccno=5555&ccno=5555&ccno=4444', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(400);
    const [formEntry] = await requests('?path=/api/s2s');
    expect(formEntry.request.body).toBe('ccno=5555&ccno=55**&ccno=****&ccno=4444');
  });

  it('keeps an S2S payment under its merchant, with ccno masked and ccvv redacted', async () => {
    const res = await sb.post('/api/s2s', s2sBody({ ccno: '4242424242424242', ccvv: '987' }));
    expect(res.status).toBe(200);
    const [entry] = await requests('?path=/api/s2s');
    expect(entry.merchant_id).toBe('mer_sandbox');
    expect(entry.ids).toContain(res.json.transID);
    expect(JSON.parse(entry.request.body)).toMatchObject({ ccno: '424242******4242', ccvv: '[redacted]' });
  });

  it('filters by method, path pattern, status class, merchant, idempotency key, payment and since; pages both ways', async () => {
    const first = await pay();
    await pay({}, { 'idempotency-key': 'k-2' });
    expect((await sb.post('/v1/refunds', { payment_id: first, amount: 100 }, bearer)).status).toBe(200);
    expect((await sb.post('/v1/payments', { amount: -1, currency: 'EUR' }, bearer)).status).toBe(400);
    expect((await sb.get('/v1/payments', { authorization: `Bearer ${CREDS.other.apiKey}` })).status).toBe(200);

    expect((await requests('?method=post')).length).toBe(4);
    expect((await requests('?path=/v1/re*')).map((e) => e.status)).toEqual([200]);
    expect((await requests('?status=4xx')).map((e) => e.status)).toEqual([400]);
    expect((await requests('?status=200')).length).toBe(4);
    expect((await requests('?merchant=mer_other')).map((e) => e.method)).toEqual(['GET']);
    expect((await requests('?idempotency_key=k-2')).length).toBe(1);
    expect((await requests(`?payment=${first}`)).map((e) => e.path)).toEqual(['/v1/refunds', '/v1/payments']);
    sb.clock.advance(60 * 60_000);
    await pay();
    expect((await requests('?since=10m')).length).toBe(1);

    const page = await sb.get('/_sandbox/requests?limit=2');
    expect(page.json.has_more).toBe(true);
    const older = await requests(`?limit=2&starting_after=${page.json.data[1].id}`);
    expect(older.map((e) => e.id)).not.toContain(page.json.data[0].id);
    const newer = await requests(`?ending_before=${older[0].id}`);
    expect(newer.map((e) => e.id)).toEqual(page.json.data.map((e: Json) => e.id));
  });

  it('leaves out its own reads, the stream, the dashboard assets and health checks that answered 200', async () => {
    await sb.get('/_sandbox/requests');
    await sb.get('/_sandbox/assets/dashboard.css');
    await sb.get('/_sandbox/health');
    await sb.get('/_sandbox/transactions/T-none');
    expect((await requests()).map((e) => `${e.path} ${e.status}`)).toEqual(['/_sandbox/transactions/T-none 404']);
  });

  it('keeps a health check that was refused', async () => {
    const guarded = createTestSandbox({ controlToken: 'ctl_token_42' });
    try {
      const token = { authorization: 'Bearer ctl_token_42' };
      expect((await guarded.request('GET', '/_sandbox/health', undefined, { authorization: 'Bearer ctl_wrong' })).status).toBe(401);
      expect((await guarded.request('GET', '/_sandbox/health', undefined, token)).status).toBe(200);
      const kept = await guarded.request('GET', '/_sandbox/requests', undefined, token);
      expect(kept.json.data.map((e: Json) => `${e.path} ${e.status}`)).toEqual(['/_sandbox/health 401']);
    } finally {
      guarded.close();
    }
  });

  it.each([
    ['status=abc', 'status'],
    ['method=P%20OST', 'method'],
    ['path=v1', 'path'],
    ['limit=0', 'limit'],
    ['since=yesterday', 'since'],
    ['colour=red', 'colour'],
  ])('answers 400 naming the field for %s', async (query, param) => {
    const res = await sb.get(`/_sandbox/requests?${query}`);
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe(param);
  });

  it('answers 404 for a payment or a page cursor it does not know', async () => {
    expect((await sb.get('/_sandbox/requests?payment=pay_nothing')).json.error).toMatchObject({ code: 'resource_missing', param: 'id' });
    expect((await sb.get('/_sandbox/requests?starting_after=req_gone')).json.error).toMatchObject({
      code: 'resource_missing',
      param: 'starting_after',
    });
  });
});

describe('the bound and reset', () => {
  it('keeps at most --journal-size requests, the newest', async () => {
    const small = createTestSandbox({ journalSize: '5' });
    try {
      for (let i = 0; i < 12; i++) await small.get('/v1/payments', bearer);
      await small.post('/v1/payments', { amount: 1, currency: 'EUR', card: card() }, bearer);
      expect(small.services.journal.count()).toBe(5);
      const kept = (await small.get('/_sandbox/requests')).json.data;
      expect(kept[0].path).toBe('/v1/payments');
      expect(kept).toHaveLength(5);
    } finally {
      small.close();
    }
  });

  it('--journal-size 0 keeps nothing and says so', async () => {
    const off = createTestSandbox({ journalSize: '0' });
    try {
      await off.get('/_sandbox/health');
      const res = await off.get('/_sandbox/requests');
      expect(res.status).toBe(409);
      expect(res.json.error.param).toBe('journal-size');
    } finally {
      off.close();
    }
  });

  it('a reset empties it; a merchant reset empties only that merchant', async () => {
    await pay();
    await sb.get('/v1/payments', { authorization: `Bearer ${CREDS.other.apiKey}` });
    await sb.post('/_sandbox/reset', { merchant: 'mer_sandbox' });
    expect((await requests()).map((e) => `${e.merchant_id} ${e.path}`)).toEqual(['null /_sandbox/reset', 'mer_other /v1/payments']);
    await sb.post('/_sandbox/reset');
    expect((await requests()).map((e) => e.path)).toEqual(['/_sandbox/reset']);
  });
});

describe('POST /_sandbox/requests/expect', () => {
  it('passes when a request matches a partial body', async () => {
    await pay({ metadata: { order_id: 'o-1' } });
    const res = await sb.post('/_sandbox/requests/expect', {
      method: 'post',
      path: '/v1/payments',
      body: { amount: 1050, metadata: { order_id: 'o-1' }, card: { number: '4242424242424242', cvc: '999' } },
      headers: { Authorization: `Bearer ${CREDS.apiKey}` },
      count: 1,
    });
    expect(res.json).toMatchObject({ ok: true, matched: 1 });
  });

  it('fails with the closest requests and the fields that differ', async () => {
    await pay({ amount: 1000 });
    await sb.get('/v1/payments', bearer);
    const res = await sb.post('/_sandbox/requests/expect', { method: 'POST', path: '/v1/payments', body: { amount: 1050 } });
    expect(res.status).toBe(200);
    expect(res.json.ok).toBe(false);
    expect(res.json.near_misses[0].request.method).toBe('POST');
    expect(res.json.near_misses[0].differences).toEqual([{ field: 'body.amount', expected: 1050, actual: 1000 }]);
    expect(res.json.near_misses[1].differences.map((d: Json) => d.field)).toEqual(['method', 'body']);
    expect(res.json.message).toContain('body.amount: expected 1050, got 1000');
  });

  it('fails when more requests match than count says', async () => {
    await pay();
    await pay();
    const res = await sb.post('/_sandbox/requests/expect', { path: '/v1/payments', method: 'POST', count: 1 });
    expect(res.json).toMatchObject({ ok: false, matched: 2 });
    expect(res.json.message).toMatch(/expected exactly 1 request POST \/v1\/payments, found 2/);
  });

  it('answers 400 naming a bad field', async () => {
    const res = await sb.post('/_sandbox/requests/expect', { count: -1 });
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe('count');
  });
});
