// URL fields (issue 14): text that passed the old pattern but is not a URL ("http://shop.example:99999/r",
// "http://%zz/r", "http://[::1/r") was stored, and the 3-D Secure page, the control authenticate
// and the checkout completion then answered 500 after the payment was committed, forever. Every URL
// field is now checked with the WHATWG parser at creation, and a stored return_url that does not
// parse (an older version's row, a snapshot) sends the customer to the sandbox's own result page.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { csrfOf, seedObjects } from '../helpers/seed-objects.js';
import { AUTH, paymentBody } from '../helpers/payments-api.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

/** URLs the old pattern let through that the WHATWG parser refuses. */
const NOT_URLS = ['http://shop.example:99999/r', 'http://%zz/r', 'http://[::1/r'];

const session = (fields: Record<string, unknown>) => ({
  amount: 100,
  currency: 'EUR',
  methods: ['card'],
  return_url: 'https://shop.example/r',
  ...fields,
});
const card = { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' };

/** [field as named in the error, path (given the seeded ids), headers, body with `url` in that field] */
const FIELDS: Array<
  [string, (ids: Awaited<ReturnType<typeof seedObjects>>) => string, Record<string, string>, (url: string) => Record<string, unknown>]
> = [
  ['webhook_url', () => '/api/s2s', {}, (url) => s2sBody({ webhook_url: url })],
  ['return_url', () => '/api/s2s', {}, (url) => s2sBody({ return_url: url })],
  ['source_url', () => '/api/s2s', {}, (url) => s2sBody({ source_url: url })],
  ['return_url', () => '/v1/payments', AUTH, (url) => paymentBody({ card, return_url: url })],
  ['webhook_url', () => '/v1/payments', AUTH, (url) => paymentBody({ card, webhook_url: url })],
  ['return_url', () => '/v1/checkout/sessions', AUTH, (url) => session({ return_url: url })],
  ['webhook_url', () => '/v1/checkout/sessions', AUTH, (url) => session({ webhook_url: url })],
  ['branding.logo_url', () => '/v1/checkout/sessions', AUTH, (url) => session({ branding: { logo_url: url } })],
  ['url', () => '/v1/webhook_endpoints', AUTH, (url) => ({ url, events: ['*'] })],
  ['url', (ids) => `/v1/webhook_endpoints/${ids.endpoint}`, AUTH, (url) => ({ url })],
  ['to', (ids) => `/_sandbox/deliveries/${ids.delivery}/replay`, {}, (url) => ({ to: url })],
  ['to', (ids) => `/_sandbox/events/${ids.event}/replay`, {}, (url) => ({ to: url })],
  ['to', () => '/_sandbox/events/trigger', {}, (url) => ({ type: 'payment.captured', to: url })],
];

/** Ids as the test names show them. */
const PLACEHOLDER_IDS = { endpoint: '{id}', delivery: '{id}', event: '{id}' } as unknown as Awaited<ReturnType<typeof seedObjects>>;

describe('URL fields are checked with the WHATWG parser', () => {
  const cases = FIELDS.flatMap(([field, path, headers, body]) =>
    NOT_URLS.map((url) => ({ field, route: path(PLACEHOLDER_IDS), path, headers, body, url })),
  );
  it.each(cases)('$field of POST $route: $url is a 400 naming the field', async ({ field, path, headers, body, url }) => {
    const ids = await seedObjects(sb);
    const res = await sb.request('POST', path(ids), body(url), headers);
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: field });
    expect(res.json.error.message).toContain('http(s) URL');
  });

  it('URLs the parser accepts still pass: ports up to 65535, IPv6 hosts, query and fragment', async () => {
    for (const url of ['http://shop.example:65535/r', 'http://[::1]:3000/r?a=1#x', 'https://xn--bcher-kva.example/r']) {
      const res = await sb.request('POST', '/api/s2s', s2sBody({ return_url: url, webhook_url: url }));
      expect(res.status, `${url}: ${res.text}`).toBe(200);
    }
  });
});

describe('a stored return_url that is no URL never fails a completion', () => {
  it('S2S: the page, the OTP post and the control authenticate land on the result page', async () => {
    const created = await sb.request('POST', '/api/s2s', s2sBody());
    const authurl: string = created.json.authurl;
    const path = new URL(authurl).pathname;
    sb.db.prepare('UPDATE transactions SET return_url = ?').run(NOT_URLS[0]);
    sb.db.prepare('UPDATE challenges SET return_url = ?').run(NOT_URLS[0]);

    const done = await sb.request('POST', path, `csrf=${await csrfOf(sb, path)}&otp=123456&action=submit`, {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(done.status, done.text).toBe(303);
    expect(done.headers.get('location')).toBe(authurl);
    const page = await sb.request('GET', path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Authentication complete');
    expect(page.text).not.toContain('class="button"');

    const other = await sb.request('POST', '/api/s2s', s2sBody());
    sb.db.prepare('UPDATE transactions SET return_url = ? WHERE trans_id = ?').run(NOT_URLS[1], other.json.transID);
    const control = await sb.request('POST', `/_sandbox/transactions/${other.json.transID}/authenticate`, { outcome: 'approve' });
    expect(control.status, control.text).toBe(200);
    expect(control.json).toMatchObject({ status: 'Test Approved', redirect_url: other.json.authurl });
  });

  it('/v1/payments: the 3-D Secure page completes and shows its result', async () => {
    const created = await sb.request('POST', '/v1/payments', paymentBody({ card: { ...card, number: '4000000000003220' } }), AUTH);
    const url: string = created.json.next_action.url;
    const path = new URL(url).pathname;
    sb.db.prepare('UPDATE payments SET return_url = ?').run(NOT_URLS[2]);
    sb.db.prepare('UPDATE challenges SET return_url = ?').run(NOT_URLS[2]);
    const done = await sb.request('POST', path, `csrf=${await csrfOf(sb, path)}&otp=123456&action=submit`, {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(done.status, done.text).toBe(303);
    expect(done.headers.get('location')).toBe(url);
    expect((await sb.request('GET', path)).status).toBe(200);
    expect((await sb.request('GET', `/v1/payments/${created.json.id}`, undefined, AUTH)).json.status).toBe('captured');
  });

  it('checkout: paying completes the session and lands on its own page', async () => {
    const created = await sb.request('POST', '/v1/checkout/sessions', session({}), AUTH);
    const path = new URL(created.json.url).pathname;
    sb.db.prepare('UPDATE checkout_sessions SET return_url = ?').run(NOT_URLS[0]);
    const paid = await sb.request(
      'POST',
      `${path}/card`,
      `csrf=${await csrfOf(sb, path)}&number=4242424242424242&expiry=12/30&cvc=123&name=Jane`,
      { 'content-type': 'application/x-www-form-urlencoded' },
    );
    expect(paid.status, paid.text).toBe(303);
    expect(paid.headers.get('location')).toBe(path);
    const page = await sb.request('GET', path);
    expect(page.status).toBe(410);
    expect(page.text).toContain('already been used');
    expect((await sb.request('GET', `/v1/checkout/sessions/${created.json.id}`, undefined, AUTH)).json.status).toBe('complete');
  });
});
