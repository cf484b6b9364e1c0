// Reading JSON bodies (issue 14): a field nested thousands of levels deep (a 10 KB body) was a 500
// on every JSON route, and bytes that are not UTF-8 were silently replaced by U+FFFD, so two
// references differing only in such bytes collided. Both are now a 400 before validation.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/contracts/json-shape.js';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH, paymentBody } from '../helpers/payments-api.js';
import { checkedResponse } from '../helpers/conformance.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

/** `levels` objects nested one in another as JSON text: {"a":{"a":...{}}} (JSON.stringify cannot write 5 000 levels). */
const nestedText = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
/** The same as a value, for depths JSON.stringify can write. */
const nested = (levels: number) => JSON.parse(nestedText(levels)) as Record<string, unknown>;
/** A body as JSON text with `deepText` in place of the string "DEEP". */
const withDeep = (body: Record<string, unknown>, deepText: string) => JSON.stringify(body).replace('"DEEP"', deepText);

/** [route, headers, a valid body with `deep` put in one of its fields, the field] */
const ROUTES: Array<[string, Record<string, string>, (deep: unknown) => Record<string, unknown>, string]> = [
  ['/api/s2s', {}, (deep) => s2sBody({ fullname: deep }), 'fullname'],
  [
    '/api/transactions/refund-request',
    {},
    (deep) => ({ transID: 'T1', refundAmount: '1.00', public_key: CREDS.publicKey, note: deep }),
    'note',
  ],
  [
    '/v1/payments',
    AUTH,
    (deep) => paymentBody({ card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' }, metadata: { order: deep } }),
    'metadata',
  ],
  ['/v1/tokens', AUTH, (deep) => ({ card: deep }), 'card'],
  [
    '/v1/checkout/sessions',
    AUTH,
    (deep) => ({ amount: 100, currency: 'EUR', methods: ['card'], return_url: 'https://shop.example/r', branding: deep }),
    'branding',
  ],
  ['/v1/webhook_endpoints', AUTH, (deep) => ({ url: 'https://shop.example/hook', events: [deep] }), 'events'],
  ['/_sandbox/clock/advance', {}, (deep) => ({ duration: deep }), 'duration'],
  ['/_sandbox/scenarios', {}, (deep) => ({ name: 'n', entries: [deep] }), 'entries'],
];

describe('deep nesting', () => {
  it.each(ROUTES)('POST %s: a field nested 5 000 levels deep (10 KB) is a 400 naming it, not a 500', async (path, headers, body, field) => {
    const text = withDeep(body('DEEP'), '['.repeat(5000) + ']'.repeat(5000));
    expect(text.length).toBeLessThan(12_000);
    const res = await sb.request('POST', path, text, { 'content-type': 'application/json', ...headers });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error.code).toBe('parameter_invalid');
    expect(res.json.error.param.startsWith(`${field}.`)).toBe(true);
    expect(res.json.error.message).toContain(`at most ${MAX_JSON_DEPTH} levels deep`);
    // The message names the field but stays short however deep the body goes.
    expect(res.json.error.message.startsWith(field)).toBe(true);
    expect(res.json.error.message.length).toBeLessThan(300);
  });

  it('the limit is exactly 32 levels, the body being level 1', async () => {
    // metadata (level 2) holding 30 more levels reaches level 32: refused by the metadata rule, not the depth limit.
    const atLimit = await sb.request('POST', '/v1/payments', paymentBody({ metadata: { k: nested(MAX_JSON_DEPTH - 2) } }), AUTH);
    expect(atLimit.status).toBe(400);
    expect(atLimit.json.error).toMatchObject({
      param: 'metadata.k',
      message: 'metadata.k must be a string (metadata is a flat map of strings), got an object with 1 field; send it as text',
    });
    const over = await sb.request('POST', '/v1/payments', paymentBody({ metadata: { k: nested(MAX_JSON_DEPTH - 1) } }), AUTH);
    expect(over.status).toBe(400);
    expect(over.json.error.param).toBe(`metadata.k${'.a'.repeat(MAX_JSON_DEPTH - 2)}`);
  });

  it('arrays count as levels too, and their indexes are named in the path', async () => {
    const body = JSON.parse(`{"methods":${'['.repeat(40)}${']'.repeat(40)}}`);
    const res = await sb.request('POST', '/v1/checkout/sessions', body, AUTH);
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe(`methods${'.0'.repeat(MAX_JSON_DEPTH - 1)}`);
  });

  it('the validators are safe on their own: a deep value below the limit in a secret or metadata field is described, not printed', async () => {
    const res = await sb.request('POST', '/v1/tokens', { card: { number: nested(20), exp_month: 12, exp_year: 2030, cvc: '123' } }, AUTH);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ param: 'card.number', message: expect.stringContaining('got an object with 1 field') });
  });
});

describe('invalid UTF-8', () => {
  /** A JSON body as bytes, with `bytes` put inside the reference string. */
  const withBytes = (bytes: number[]) => {
    const [head, tail] = JSON.stringify(s2sBody({ reference: 'ord-BYTES-1', ccno: '4242424242424242' })).split('BYTES') as [string, string];
    return Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(tail)]);
  };
  const post = async (body: Buffer, headers: Record<string, string> = {}) =>
    checkedResponse(
      'POST',
      '/api/s2s',
      await sb.app.request('/api/s2s', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }),
    );

  it('two references that differ only in invalid bytes do not collide: each is a 400', async () => {
    // Each used to become "ord-\ufffd-1": the first was accepted, the others refused as a reused reference.
    for (const bytes of [[0xff], [0xfe], [0xc3], [0xed, 0xa0, 0x80]]) {
      const res = await post(withBytes(bytes));
      expect(res.status, `bytes ${bytes}`).toBe(400);
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('invalid_encoding');
      expect(error.message).toMatch(/^the body is not valid UTF-8/);
    }
    expect(sb.db.prepare('SELECT COUNT(*) FROM transactions').pluck().get()).toBe(0);
  });

  it('is refused before an Idempotency-Key fingerprints the body, so no key is stored', async () => {
    const res = await post(withBytes([0xff]), { 'idempotency-key': 'utf8-key' });
    expect(res.status).toBe(400);
    expect(sb.db.prepare('SELECT COUNT(*) FROM idempotency_keys').pluck().get()).toBe(0);
  });

  it('valid UTF-8 (a byte order mark, multi-byte characters) is still read', async () => {
    const text = JSON.stringify(s2sBody({ reference: 'ord-é€😀', ccno: '4242424242424242' }));
    const res = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]));
    expect(res.status, await res.clone().text()).toBe(200);
    expect(sb.db.prepare('SELECT reference FROM transactions').pluck().get()).toBe('ord-é€😀');
  });
});

describe('lone surrogates', () => {
  // JSON may escape a UTF-16 unit alone ("\ud800"): no character, it was stored as U+FFFD ("\ufffdx"),
  // the silent replacement bytes that are not UTF-8 are refused for. `UNIT` in the text becomes the escape.
  const post = (path: string, text: string, headers: Record<string, string> = {}) =>
    sb.post(path, text, { 'content-type': 'application/json', ...headers });
  const withUnit = (body: Record<string, unknown>, unit: string) => JSON.stringify(body).replace('UNIT', unit);

  it.each([
    ['/api/s2s', 'reference', '\\ud800', {}, s2sBody({ reference: 'ord-UNITx' })],
    ['/api/s2s', 'reference', '\\uDFFF', {}, s2sBody({ reference: 'ord-xUNIT' })],
    ['/v1/payments', 'metadata.order', '\\udc00', AUTH, paymentBody({ metadata: { order: 'UNIT' } })],
    ['/v1/payments', 'metadata.\\udbff', '\\udbff', AUTH, paymentBody({ metadata: { UNIT: 'a' } })],
    ['/_sandbox/scenarios', 'name', '\\ud83d', {}, { name: 'UNIT', entries: [{ reference: 'order-*', outcome: 'approve' }] }],
  ])(
    'POST %s: a lone surrogate in %s (%s) is a 400 invalid_encoding naming it, and nothing is stored',
    async (path, param, unit, headers, body) => {
      const res = await post(path, withUnit(body, unit), { ...headers, 'Idempotency-Key': `lone-${param}` });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'invalid_encoding', param, message: expect.stringContaining('lone surrogate') });
      for (const table of ['transactions', 'payments', 'scenario_entries', 'idempotency_keys'])
        expect(sb.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get(), table).toBe(0);
    },
  );

  it('a surrogate pair escaped in JSON is the character it names, stored as it is', async () => {
    const res = await post('/api/s2s', withUnit(s2sBody({ reference: 'ord-UNIT' }), '\\ud83d\\ude00'));
    expect(res.status).toBe(200);
    expect(sb.db.prepare('SELECT reference FROM transactions').pluck().get()).toBe('ord-😀');
  });
});
