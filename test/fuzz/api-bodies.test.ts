// Fuzzing every POST of the API with mutated and random bodies, content types and headers: the
// JSON S2S endpoint, the encrypted form endpoint (mutated plaintext inside valid encryption, and
// mutated ciphertext), refund-request, every /v1/ POST, the control API POSTs (chargebacks,
// settlements and triggers included, triggers with `set` paths through prototype keys, and each with no body at all) and the dashboard's form posts, plus bodies nested thousands
// of levels deep and bytes that are not UTF-8 on every JSON POST. Each answer is
// below 500, a JSON error has the documented shape, and a rejected request leaves the database
// exactly as it was. The seed is fixed (FUZZ_SEED to change it); fast-check prints it on failure.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildEncryptedData } from '../../src/crypto/s2s-cipher.js';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import {
  FUZZ_SEED,
  bearerHeader,
  extraHeaders,
  formBody,
  fuzzOptions,
  hostileJsonText,
  jsonBody,
  mutatedBody,
  prototypeChanges,
  sendAndCheck,
  setFields,
  type FuzzBody,
} from './fuzz-kit.js';
import { seedObjects, type SeededObjects } from '../helpers/seed-objects.js';
import { EVENT_TYPE_NAMES } from '../../src/domain/event-types.js';

let sb: TestSandbox;
let ids: SeededObjects;

beforeEach(async () => {
  sb = createTestSandbox();
  ids = await seedObjects(sb);
});
afterEach(() => sb.close());

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' };

/** [name, method, path, valid body] of every JSON POST that takes a bearer key. */
const v1Posts: Array<[string, (ids: SeededObjects) => string, (ids: SeededObjects) => Record<string, unknown>]> = [
  [
    '/v1/payments',
    () => '/v1/payments',
    () => ({
      amount: 1050,
      currency: 'EUR',
      method: 'card',
      routing: 'smart',
      customer: { country: 'NL', email: 'jane@example.com', name: 'Jane' },
      card,
      reference: 'o-1',
      description: 'mug',
      metadata: { order: '1' },
      capture: true,
      return_url: 'https://shop.example/r',
      webhook_url: 'https://shop.example/w',
    }),
  ],
  ['/v1/payments/{id}/capture', (i) => `/v1/payments/${i.authorized}/capture`, () => ({ amount: 500 })],
  ['/v1/payments/{id}/cancel', (i) => `/v1/payments/${i.authorized}/cancel`, () => ({})],
  ['/v1/refunds', () => '/v1/refunds', (i) => ({ payment_id: i.payment, amount: 10, reason: 'requested_by_customer' })],
  ['/v1/tokens', () => '/v1/tokens', () => ({ card })],
  [
    '/v1/checkout/sessions',
    () => '/v1/checkout/sessions',
    () => ({
      amount: 2500,
      currency: 'EUR',
      methods: ['card', 'ideal'],
      branding: { logo_url: 'https://shop.example/logo.png' },
      return_url: 'https://shop.example/return',
      reference: 'o-2',
      customer_email: 'jane@example.com',
      webhook_url: 'https://shop.example/w',
      expires_in: 600,
    }),
  ],
  ['/v1/checkout/sessions/{id}/expire', (i) => `/v1/checkout/sessions/${i.session}/expire`, () => ({})],
  [
    '/v1/webhook_endpoints',
    () => '/v1/webhook_endpoints',
    () => ({ url: 'https://shop.example/hook', events: ['payment.authorized', 'refund.succeeded'], description: 'main', enabled: true }),
  ],
  [
    '/v1/webhook_endpoints/{id}',
    (i) => `/v1/webhook_endpoints/${i.endpoint}`,
    () => ({ url: 'https://shop.example/hook2', events: ['*'], description: 'x', enabled: false }),
  ],
  ['/v1/webhook_endpoints/{id}/rotate_secret', (i) => `/v1/webhook_endpoints/${i.endpoint}/rotate_secret`, () => ({})],
];

/** Control API POSTs (loopback in-process, so the guard lets them through). */
const controlPosts: Array<[string, (ids: SeededObjects) => string, (ids: SeededObjects) => Record<string, unknown>]> = [
  [
    '/_sandbox/transactions/{id}/authenticate',
    (i) => `/_sandbox/transactions/${i.transPending}/authenticate`,
    () => ({ outcome: 'approve' }),
  ],
  ['/_sandbox/clock/advance', () => '/_sandbox/clock/advance', () => ({ duration: '1s' })],
  ['/_sandbox/faults', () => '/_sandbox/faults', () => ({ spec: 'duplicate=2', seed: 7 })],
  [
    '/_sandbox/scenarios',
    () => '/_sandbox/scenarios',
    () => ({
      name: 'n',
      description: 'd',
      entries: [{ terNO: 1001, reference: 'order-*', amount: 100, mop: 'CC', outcome: 'approve', times: 2 }],
    }),
  ],
  ['/_sandbox/deliveries/retry-failed', () => '/_sandbox/deliveries/retry-failed', () => ({ since: '10m' })],
  ['/_sandbox/deliveries/{id}/replay', (i) => `/_sandbox/deliveries/${i.delivery}/replay`, () => ({ to: 'http://127.0.0.1:9/replay' })],
  ['/_sandbox/events/{id}/replay', (i) => `/_sandbox/events/${i.event}/replay`, () => ({ to: 'http://127.0.0.1:9/replay' })],
  ['/_sandbox/import', () => '/_sandbox/import', () => ({ version: 1, tables: { merchants: { columns: ['id'], rows: [['x']] } } })],
  ['/_sandbox/chargebacks (S2S)', () => '/_sandbox/chargebacks', (i) => ({ transID: i.transApproved, reason: 'fraudulent', amount: 100 })],
  ['/_sandbox/chargebacks (/v1/)', () => '/_sandbox/chargebacks', (i) => ({ payment_id: i.payment, amount: 100 })],
  ['/_sandbox/settlements', () => '/_sandbox/settlements', () => ({ merchant: 'mer_sandbox', currency: 'EUR', pay_after: '1h' })],
  [
    '/_sandbox/events/trigger',
    () => '/_sandbox/events/trigger',
    (i) => ({ type: 'payment.captured', payment_id: i.payment, to: 'http://127.0.0.1:9/t', merchant: 'mer_sandbox' }),
  ],
  [
    '/_sandbox/events/trigger (set)',
    () => '/_sandbox/events/trigger',
    () => ({
      type: 'payment.captured',
      set: { amount: 1500, currency: 'EUR', 'metadata.order_id': 'ord_42', 'customer.email': 'jane@example.com' },
    }),
  ],
];

/** Runs the property: each generated request is sent and checked. */
async function fuzz(arb: fc.Arbitrary<{ path: string; body: FuzzBody; headers: Record<string, string> }>) {
  await fc.assert(
    fc.asyncProperty(arb, async ({ path, body, headers }) => {
      await sendAndCheck(sb, 'POST', path, body, headers, { jsonErrors: true });
    }),
    fuzzOptions(),
  );
}

function withoutUndefined(headers: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<string, string>;
}

describe(`fuzzing the POST endpoints (seed ${FUZZ_SEED})`, () => {
  it('POST /api/s2s: mutated JSON bodies, content types, outcome and idempotency headers', async () => {
    await fuzz(fc.record({ path: fc.constant('/api/s2s'), body: jsonBody(s2sBody({ reference: 'fuzz-1' })), headers: extraHeaders }));
  });

  it('POST /api/transactions/refund-request: mutated JSON bodies', async () => {
    await fuzz(
      fc.record({
        path: fc.constant('/api/transactions/refund-request'),
        body: jsonBody({ transID: ids.transApproved, refundAmount: '1.00', public_key: CREDS.publicKey }),
        headers: extraHeaders,
      }),
    );
  });

  it('POST /api/s2s/encrypt: mutated parameters inside a valid encryption', async () => {
    const inner = { ...s2sBody({ reference: 'fuzz-enc' }), encryption_method: 'aes256' };
    const stringify = (b: Record<string, unknown>) =>
      new URLSearchParams(
        Object.entries(b).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : (JSON.stringify(v) ?? '')]),
      ).toString();
    const body = fc.record({
      raw: mutatedBody(inner).map(
        (b) =>
          `encrypted_data=${encodeURIComponent(buildEncryptedData(stringify(b), { privateKey: CREDS.privateKey, publicKey: CREDS.publicKey }))}`,
      ),
      contentType: fc.constant('application/x-www-form-urlencoded'),
    });
    await fuzz(fc.record({ path: fc.constant('/api/s2s/encrypt'), body, headers: extraHeaders }));
  });

  it('POST /api/s2s/encrypt: mutated ciphertext, forms and content types', async () => {
    const valid = buildEncryptedData(
      new URLSearchParams({
        ...(s2sBody({ reference: 'fuzz-enc2' }) as Record<string, string>),
        terNO: '1001',
        encryption_method: 'none',
      }).toString(),
      { privateKey: CREDS.privateKey, publicKey: CREDS.publicKey },
    );
    const cipher = fc.oneof(
      fc
        .record({ at: fc.nat(valid.length - 1), ch: fc.constantFrom('A', '+', ' ', '=', '/', '%', 'é', '') })
        .map(({ at, ch }) => valid.slice(0, at) + ch + valid.slice(at + 1)),
      fc.nat(valid.length).map((n) => valid.slice(n)),
      fc.nat(valid.length).map((n) => valid.slice(0, n)),
      fc.constant(valid.replaceAll('+', ' ')),
      fc.constant(valid.replace(CREDS.publicKey, CREDS.other.publicKey)),
      fc.string({ maxLength: 80 }).map((s) => s + CREDS.publicKey),
    );
    const raw = fc.oneof(
      { weight: 3, arbitrary: cipher.map((c) => `encrypted_data=${encodeURIComponent(c)}`) },
      { weight: 1, arbitrary: cipher.map((c) => `encrypted_data=${c}`) },
      { weight: 1, arbitrary: formBody({ encrypted_data: valid }).map((b) => b.raw) },
    );
    const body = fc.record({
      raw,
      contentType: fc.oneof(
        { weight: 5, arbitrary: fc.constant('application/x-www-form-urlencoded') },
        { weight: 1, arbitrary: fc.constantFrom(undefined, 'application/json', 'multipart/form-data; boundary=x', 'text/plain') },
      ),
    });
    await fuzz(fc.record({ path: fc.constant('/api/s2s/encrypt'), body: body as fc.Arbitrary<FuzzBody>, headers: extraHeaders }));
  });

  it.each(v1Posts)('POST %s: mutated JSON bodies, bearer headers, content types', async (_name, path, valid) => {
    const arb = fc
      .record({ body: jsonBody(valid(ids)), auth: bearerHeader(CREDS.apiKey), extra: extraHeaders })
      .map(({ body, auth, extra }) => ({
        path: path(ids),
        body,
        headers: withoutUndefined({ ...extra, authorization: auth }),
      }));
    await fuzz(arb);
  });

  it.each(controlPosts)('POST %s: mutated JSON bodies and content types', async (_name, path, valid) => {
    await fuzz(fc.record({ path: fc.constant(path(ids)), body: jsonBody(valid(ids)), headers: extraHeaders }));
  });

  it('POST /_sandbox/events/trigger: set paths through prototype keys, for any event, on a new or given payment; no prototype changes', async () => {
    const prototypes = prototypeChanges();
    const arb = fc
      .record({
        // Mostly events that make a payment, whose metadata.* and customer.* paths are nested.
        type: fc.oneof(
          { weight: 2, arbitrary: fc.constantFrom(...EVENT_TYPE_NAMES.filter((type) => type.startsWith('payment.'))) },
          { weight: 1, arbitrary: fc.constantFrom(...EVENT_TYPE_NAMES) },
        ),
        paymentId: fc.oneof(
          { weight: 3, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom(ids.authorized, ids.payment) },
        ),
        set: setFields,
      })
      .map(({ type, paymentId, set }) => ({
        path: '/_sandbox/events/trigger',
        body: { raw: JSON.stringify({ type, ...(paymentId ? { payment_id: paymentId } : {}), set }), contentType: 'application/json' },
        headers: {},
      }));
    await fc.assert(
      fc.asyncProperty(arb, async ({ path, body, headers }) => {
        await sendAndCheck(sb, 'POST', path, body, headers, { jsonErrors: true });
        expect(({} as Record<string, unknown>).polluted, body.raw).toBeUndefined();
        expect(prototypes(), body.raw).toEqual([]);
      }),
      fuzzOptions(),
    );
  });

  it('every JSON POST: fields nested up to 5 000 levels deep and bytes that are not UTF-8 are never a 5xx', async () => {
    const routes: Array<[string, Record<string, unknown>, Record<string, string>]> = [
      ['/api/s2s', s2sBody({ reference: 'fuzz-hostile' }), {}],
      ['/api/transactions/refund-request', { transID: ids.transApproved, refundAmount: '1.00', public_key: CREDS.publicKey }, {}],
      ...v1Posts.map(
        ([, path, valid]) =>
          [path(ids), valid(ids), { authorization: `Bearer ${CREDS.apiKey}` }] as [string, Record<string, unknown>, Record<string, string>],
      ),
      ...controlPosts.map(([, path, valid]) => [path(ids), valid(ids), {}] as [string, Record<string, unknown>, Record<string, string>]),
    ];
    const arb = fc.constantFrom(...routes).chain(([path, valid, auth]) =>
      fc
        .record({ raw: hostileJsonText(valid), key: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }) })
        .map(({ raw, key }) => ({
          path,
          body: { raw, contentType: 'application/json' } as FuzzBody,
          headers: withoutUndefined({ ...auth, 'idempotency-key': key?.replace(/[^\x20-\x7e]/g, 'k') }),
        })),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ({ path, body, headers }) => {
        const res = await sendAndCheck(sb, 'POST', path, body, headers, { jsonErrors: true });
        // A route that reads its body refuses bytes that are not UTF-8 (rotate_secret reads none).
        if (typeof body.raw !== 'string' && !path.endsWith('/rotate_secret'))
          expect(res.status, `${path}: bytes that are not UTF-8`).toBeGreaterThanOrEqual(400);
      }),
      fuzzOptions(),
    );
  });

  it.each(['win', 'lose'])('POST /_sandbox/chargebacks/{id}/%s with random ids and bodies', async (verdict) => {
    const opened = await sb.request('POST', '/_sandbox/chargebacks', { payment_id: ids.payment });
    const id = fc
      .oneof(fc.constant(opened.json.id as string), fc.string({ maxLength: 30 }), fc.constantFrom('cb_0000000000000000', '__proto__', '..'))
      .map((s) => encodeURIComponent(s));
    await fuzz(
      fc
        .record({ id, body: jsonBody({}), headers: extraHeaders })
        .map(({ id, body, headers }) => ({ path: `/_sandbox/chargebacks/${id}/${verdict}`, body, headers })),
    );
  });

  it('every control POST with no body at all (no Content-Type), from no browser or from another origin', async () => {
    const opened = await sb.request('POST', '/_sandbox/chargebacks', { payment_id: ids.payment });
    const paths = [
      ...controlPosts.map(([, path]) => path(ids)),
      ...['win', 'lose'].map((verdict) => `/_sandbox/chargebacks/${opened.json.id}/${verdict}`),
    ];
    const arb = fc.record({
      path: fc.constantFrom(...paths),
      length: fc.constantFrom(undefined, '0', ' 0'),
      origin: fc.constantFrom(undefined, 'http://localhost', 'http://evil.example', 'null'),
      site: fc.constantFrom(undefined, 'same-origin', 'none', 'cross-site', 'same-site'),
      extra: extraHeaders,
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ path, length, origin, site, extra }) => {
        const headers = withoutUndefined({ ...extra, 'content-length': length, origin, 'sec-fetch-site': site });
        const res = await sendAndCheck(sb, 'POST', path, undefined, headers, { jsonErrors: true });
        // Body-less is never a Content-Type problem; another origin is refused whatever it sends.
        expect(res.json?.error?.code, res.text).not.toBe('unsupported_content_type');
        const foreign =
          site === 'cross-site' || site === 'same-site' || (site === undefined && (origin === 'http://evil.example' || origin === 'null'));
        if (foreign) expect(res.status, res.text).toBe(403);
      }),
      fuzzOptions(),
    );
  });

  it("POST /_sandbox/dashboard/authenticate: mutated forms (with the page's csrf) and content types", async () => {
    const page = await sb.request('GET', '/_sandbox/?tab=transactions');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? 'no-csrf-on-page';
    const body = formBody({ csrf, subject: 'transaction', id: ids.transPending, outcome: 'decline', back: '/_sandbox/?tab=transactions' });
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        await sendAndCheck(sb, 'POST', '/_sandbox/dashboard/authenticate', b, {}, { jsonErrors: true });
      }),
      fuzzOptions(),
    );
  });

  it('POST /_sandbox/dashboard/deliveries/{id}/replay: random ids, mutated forms', async () => {
    const page = await sb.request('GET', `/_sandbox/dashboard/deliveries/${ids.delivery}`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? 'no-csrf-on-page';
    const id = fc.oneof(fc.constant(ids.delivery), fc.string({ maxLength: 30 })).map((s) => encodeURIComponent(s));
    await fc.assert(
      fc.asyncProperty(fc.record({ id, body: formBody({ csrf }) }), async ({ id, body }) => {
        await sendAndCheck(sb, 'POST', `/_sandbox/dashboard/deliveries/${id}/replay`, body, {}, { jsonErrors: true });
      }),
      fuzzOptions(),
    );
  });
});
