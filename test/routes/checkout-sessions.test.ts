// Hosted checkout through app.request(): the session API (validation, isolation, expire), the
// page (escaping, methods, CSRF), single use and expiry (410), and the card / iDEAL / SEPA flows
// with their events. The browser tests drive the same flows in Chromium.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH, OTHER } from '../helpers/payments-api.js';
import type { Json } from '../helpers/json.js';

let sandbox: TestSandbox;
beforeEach(() => {
  sandbox = createTestSandbox();
});
afterEach(() => sandbox.close());

function sessionBody(overrides: Record<string, unknown> = {}) {
  return {
    amount: 1050,
    currency: 'EUR',
    methods: ['card', 'ideal', 'sepa'],
    branding: { logo_url: 'https://shop.example/logo.png' },
    return_url: 'https://shop.example/return?order=42',
    reference: 'order-42',
    webhook_url: 'http://127.0.0.1:9/hooks',
    ...overrides,
  };
}

async function createSession(overrides: Record<string, unknown> = {}) {
  const res = await sandbox.request('POST', '/v1/checkout/sessions', sessionBody(overrides), AUTH);
  expect(res.status).toBe(200);
  const token = new URL(res.json.url).pathname.split('/').pop()!;
  return { ...res.json, token, csrf: sandbox.store.checkoutSessions.get(res.json.id)!.csrf } as Json;
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const post = (path: string, fields: Record<string, string>) => sandbox.request('POST', path, form(fields), FORM);
/** The event types of one resource, in the order they were recorded. */
const eventTypes = (resourceId: string) =>
  sandbox.store.db.prepare('SELECT type FROM events WHERE resource_id = ? ORDER BY rowid').pluck().all(resourceId);

describe('POST /v1/checkout/sessions', () => {
  it('creates an open session with an unguessable single-use url and the default 30-minute expiry', async () => {
    const res = await sandbox.request('POST', '/v1/checkout/sessions', sessionBody(), AUTH);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      object: 'checkout.session',
      status: 'open',
      amount: 1050,
      currency: 'EUR',
      methods: ['card', 'ideal', 'sepa'],
      branding: { logo_url: 'https://shop.example/logo.png' },
      reference: 'order-42',
      payment_id: null,
      expires_at: new Date(sandbox.clock.now() + 1800_000).toISOString(),
    });
    expect(res.json.id).toMatch(/^cs_[A-Za-z0-9]{16}$/);
    expect(res.json.url).toMatch(/^http:\/\/sandbox\.test\/pay\/[A-Za-z0-9_-]{43}$/);
    expect(res.json.url).not.toContain(res.json.id);
  });

  it('takes expires_in in seconds and needs no branding', async () => {
    const res = await sandbox.request('POST', '/v1/checkout/sessions', sessionBody({ expires_in: 60, branding: undefined }), AUTH);
    expect(res.status).toBe(200);
    expect(res.json.expires_at).toBe(new Date(sandbox.clock.now() + 60_000).toISOString());
    expect(res.json.branding.logo_url).toBeNull();
  });

  it('accepts a zero-decimal currency with card, and currency codes in lower case', async () => {
    const res = await sandbox.request(
      'POST',
      '/v1/checkout/sessions',
      sessionBody({ currency: 'jpy', amount: 1200, methods: ['card'] }),
      AUTH,
    );
    expect(res.status).toBe(200);
    expect(res.json.currency).toBe('JPY');
  });

  const invalid: Array<[string, Record<string, unknown>, string, string]> = [
    ['amount missing', { amount: undefined }, 'amount', 'parameter_missing'],
    ['amount as a string', { amount: '1050' }, 'amount', 'parameter_invalid'],
    ['amount with decimals', { amount: 10.5 }, 'amount', 'parameter_invalid'],
    ['amount zero', { amount: 0 }, 'amount', 'parameter_invalid'],
    ['unknown currency', { currency: 'EURO' }, 'currency', 'parameter_invalid'],
    ['methods missing', { methods: undefined }, 'methods', 'parameter_missing'],
    ['methods empty', { methods: [] }, 'methods', 'parameter_invalid'],
    ['unknown method', { methods: ['card', 'paypal'] }, 'methods.1', 'parameter_invalid'],
    ['duplicate method', { methods: ['card', 'card'] }, 'methods', 'parameter_invalid'],
    ['iDEAL in USD', { currency: 'USD', methods: ['card', 'ideal'] }, 'methods', 'parameter_invalid'],
    ['SEPA in GBP', { currency: 'GBP', methods: ['sepa'] }, 'methods', 'parameter_invalid'],
    ['javascript: logo', { branding: { logo_url: 'javascript:alert(1)' } }, 'branding.logo_url', 'parameter_invalid'],
    ['data: logo', { branding: { logo_url: 'data:image/png;base64,iVBORw0KGgo=' } }, 'branding.logo_url', 'parameter_invalid'],
    ['relative logo', { branding: { logo_url: '/logo.png' } }, 'branding.logo_url', 'parameter_invalid'],
    [
      'unknown branding field',
      { branding: { logo_url: 'https://shop.example/logo.png', colour: 'red' } },
      'branding.colour',
      'parameter_unknown',
    ],
    ['return_url missing', { return_url: undefined }, 'return_url', 'parameter_missing'],
    ['ftp return_url', { return_url: 'ftp://shop.example/' }, 'return_url', 'parameter_invalid'],
    ['webhook_url not a URL', { webhook_url: 'shop.example/hooks' }, 'webhook_url', 'parameter_invalid'],
    ['bad customer_email', { customer_email: 'jane' }, 'customer_email', 'parameter_invalid'],
    ['expires_in too short', { expires_in: 59 }, 'expires_in', 'parameter_invalid'],
    ['expires_in too long', { expires_in: 86_401 }, 'expires_in', 'parameter_invalid'],
    ['reference too long', { reference: 'x'.repeat(65) }, 'reference', 'parameter_invalid'],
    ['unknown field', { expires_after: 60 }, 'expires_after', 'parameter_unknown'],
  ];
  it.each(invalid)('400 for %s, naming the field', async (_name, overrides, param, code) => {
    const res = await sandbox.request('POST', '/v1/checkout/sessions', sessionBody(overrides), AUTH);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code, param });
    expect(res.json.error.message).toContain(param.split('.').pop());
    expect(res.json.error.request_id).toMatch(/^req_/);
  });

  it('says why iDEAL needs EUR', async () => {
    const res = await sandbox.request('POST', '/v1/checkout/sessions', sessionBody({ currency: 'USD', methods: ['ideal'] }), AUTH);
    expect(res.json.error.message).toMatch(/iDEAL is only available in EUR/);
  });

  it('400 for a body that is not JSON', async () => {
    const res = await sandbox.request('POST', '/v1/checkout/sessions', 'amount=1', {
      ...AUTH,
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('unsupported_content_type');
  });

  it('replays the first answer for a repeated Idempotency-Key, so a retried create makes one session', async () => {
    const headers = { ...AUTH, 'idempotency-key': 'checkout-order-42' };
    const first = await sandbox.request('POST', '/v1/checkout/sessions', sessionBody(), headers);
    const second = await sandbox.request('POST', '/v1/checkout/sessions', sessionBody(), headers);
    expect(second.status).toBe(200);
    expect(second.json.id).toBe(first.json.id);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });

  it('401 without an API key', async () => {
    const res = await sandbox.request('POST', '/v1/checkout/sessions', sessionBody());
    expect(res.status).toBe(401);
  });
});

describe('GET /v1/checkout/sessions/{id} and POST .../expire', () => {
  it('shows the session to its merchant only; another key gets the same 404 as an unknown id', async () => {
    const session = await createSession();
    const own = await sandbox.request('GET', `/v1/checkout/sessions/${session.id}`, undefined, AUTH);
    expect(own.status).toBe(200);
    expect(own.json.status).toBe('open');

    const other = await sandbox.request('GET', `/v1/checkout/sessions/${session.id}`, undefined, OTHER);
    const missing = await sandbox.request('GET', '/v1/checkout/sessions/cs_doesnotexist0000', undefined, AUTH);
    expect(other.status).toBe(404);
    expect(missing.status).toBe(404);
    const strip = (body: Json) => ({ ...body.error, request_id: undefined, message: body.error.message.replace(/cs_\w+/, 'ID') });
    expect(strip(other.json)).toEqual(strip(missing.json));

    const otherExpire = await sandbox.request('POST', `/v1/checkout/sessions/${session.id}/expire`, undefined, OTHER);
    expect(otherExpire.status).toBe(404);
    expect((await sandbox.request('GET', `/v1/checkout/sessions/${session.id}`, undefined, AUTH)).json.status).toBe('open');
  });

  it('expire ends an open session, publishes checkout.session.expired, and a second expire is 409', async () => {
    const session = await createSession();
    const res = await sandbox.request('POST', `/v1/checkout/sessions/${session.id}/expire`, undefined, AUTH);
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('expired');
    expect(res.json.completed_at).toBeNull();
    expect(res.json.expired_at).toBe(new Date(sandbox.clock.now()).toISOString());
    expect(eventTypes(session.id)).toEqual(['checkout.session.expired']);
    const delivery = sandbox.store.deliveries.list({ limit: 10 }).find((d: Json) => d.url === 'http://127.0.0.1:9/hooks');
    expect(JSON.parse(delivery!.body)).toMatchObject({ event: 'checkout.session.expired', data: { id: session.id, status: 'expired' } });

    const again = await sandbox.request('POST', `/v1/checkout/sessions/${session.id}/expire`, undefined, AUTH);
    expect(again.status).toBe(409);
    expect(again.json.error).toMatchObject({ code: 'invalid_state' });
    expect(again.json.error.message).toContain('already expired');

    const page = await sandbox.request('GET', `/pay/${session.token}`);
    expect(page.status).toBe(410);
    expect(page.text).toContain('This payment link has expired');
  });

  it('expires by time: the job ends it at expires_at', async () => {
    const session = await createSession({ expires_in: 60 });
    sandbox.clock.advance(59_000);
    expect(sandbox.services.jobs.runDue()).toBe(0);
    expect((await sandbox.request('GET', `/pay/${session.token}`)).status).toBe(200);
    sandbox.clock.advance(1_000);
    expect(sandbox.services.jobs.runDue()).toBeGreaterThan(0);
    expect((await sandbox.request('GET', `/v1/checkout/sessions/${session.id}`, undefined, AUTH)).json.status).toBe('expired');
    expect(eventTypes(session.id)).toEqual(['checkout.session.expired']);
  });

  it("a clock that jumps past expiry stamps expired_at with the session's expires_at, by the job or when the session is read first", async () => {
    const byJob = await createSession({ expires_in: 60 });
    const byRead = await createSession({ expires_in: 120 });
    sandbox.clock.advance(3_600_000);
    expect(sandbox.services.jobs.runDue()).toBe(2);
    const expired = (await sandbox.request('GET', `/v1/checkout/sessions/${byJob.id}`, undefined, AUTH)).json;
    expect(expired).toMatchObject({ status: 'expired', expires_at: byJob.expires_at, expired_at: byJob.expires_at });
    // The event says the same, and was created when the session ran out.
    const event = sandbox.store.db
      .prepare("SELECT data, created_at AS createdAt FROM events WHERE resource_id = ? AND type = 'checkout.session.expired'")
      .get(byJob.id) as { data: string; createdAt: number };
    expect(JSON.parse(event.data)).toMatchObject({ expired_at: byJob.expires_at });
    expect(new Date(event.createdAt).toISOString()).toBe(byJob.expires_at);

    const later = await createSession({ expires_in: 60 });
    sandbox.clock.advance(3_600_000);
    // Read before its job ran: expired on the spot, as of its expires_at all the same.
    expect((await sandbox.request('GET', `/v1/checkout/sessions/${later.id}`, undefined, AUTH)).json).toMatchObject({
      status: 'expired',
      expired_at: later.expires_at,
    });
    expect((await sandbox.request('GET', `/v1/checkout/sessions/${byRead.id}`, undefined, AUTH)).json).toMatchObject({
      status: 'expired',
      expired_at: byRead.expires_at,
    });
  });

  it('an expired session refuses later form posts with 410, even before its job has run', async () => {
    const session = await createSession({ expires_in: 60 });
    sandbox.clock.advance(61_000);
    const res = await post(`/pay/${session.token}/card`, {
      csrf: session.csrf,
      number: '4242424242424242',
      expiry: '12/30',
      cvc: '123',
      name: 'Jane',
    });
    expect(res.status).toBe(410);
    expect(res.text).toContain('This payment link has expired');
    expect(sandbox.store.payments.list({ merchantId: 'mer_sandbox', limit: 10 })).toEqual([]);
  });
});

describe('the page at the session url', () => {
  it('shows the merchant, the formatted amount and only the requested methods, with secure headers', async () => {
    const session = await createSession({ methods: ['card', 'sepa'] });
    const res = await sandbox.request('GET', `/pay/${session.token}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('Sandbox Merchant');
    expect(res.text).toContain('€10.50');
    expect(res.text).toContain('src="https://shop.example/logo.png"');
    expect(res.text).toContain(`href="/pay/${session.token}?method=sepa"`);
    expect(res.text).not.toContain('method=ideal');
    expect(res.text).toContain('name="csrf"');
    expect(res.text).toContain('href="/assets/pay.css"');
    expect(res.text).not.toMatch(/<script(?! src="\/assets\/local-time\.js")|https?:\/\/(?!shop\.example)[^"]*\.(css|js)/);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('escapes the reference and the logo URL', async () => {
    const session = await createSession({
      reference: '<script>alert(1)</script>',
      branding: { logo_url: 'https://shop.example/logo.png?a="><script>x</script>' },
    });
    const res = await sandbox.request('GET', `/pay/${session.token}`);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('<script>');
    expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(res.text).toContain('src="https://shop.example/logo.png?a=&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
  });

  it('formats the amount for its currency', async () => {
    const session = await createSession({ currency: 'JPY', amount: 1200, methods: ['card'] });
    expect((await sandbox.request('GET', `/pay/${session.token}`)).text).toContain('¥1,200');
  });

  it('404 for an unknown token', async () => {
    const res = await sandbox.request('GET', '/pay/not-a-real-token');
    expect(res.status).toBe(404);
    expect(res.text).toContain('not valid');
  });

  it("refuses a form without the page's CSRF token (403) and charges nothing", async () => {
    const session = await createSession();
    const res = await post(`/pay/${session.token}/card`, {
      csrf: 'forged',
      number: '4242424242424242',
      expiry: '12/30',
      cvc: '123',
      name: 'Jane',
    });
    expect(res.status).toBe(403);
    expect(res.text).toContain('was not sent from this page');
    expect(sandbox.store.payments.list({ merchantId: 'mer_sandbox', limit: 10 })).toEqual([]);
  });

  it('shows field errors for a bad card form and keeps what was typed (never the CVC)', async () => {
    const session = await createSession();
    const res = await post(`/pay/${session.token}/card`, {
      csrf: session.csrf,
      number: '4242 4242 4242 4241',
      expiry: '13/30',
      cvc: '12',
      name: 'Jane <b>',
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Your card number is not valid');
    expect(res.text).toContain('Enter the expiry date as MM / YY');
    expect(res.text).toContain('security code');
    expect(res.text).toContain('value="4242 4242 4242 4241"');
    expect(res.text).toContain('value="Jane &lt;b&gt;"');
    expect(res.text).toContain('aria-invalid="true"');
  });

  it('refuses an expired card', async () => {
    const session = await createSession();
    const res = await post(`/pay/${session.token}/card`, {
      csrf: session.csrf,
      number: '4242424242424242',
      expiry: '01/20',
      cvc: '123',
      name: 'Jane',
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain('This card has expired');
  });
});

describe('paying on the page', () => {
  const card = (session: Json, number: string) =>
    post(`/pay/${session.token}/card`, { csrf: session.csrf, number, expiry: '12 / 30', cvc: '123', name: 'Jane Doe' });

  it('a frictionless card completes the session, redirects to return_url, and the link is then used up (410)', async () => {
    const session = await createSession();
    const res = await card(session, '4242 4242 4242 4242');
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(location.origin + location.pathname).toBe('https://shop.example/return');
    expect(Object.fromEntries(location.searchParams)).toEqual({ order: '42', session_id: session.id, status: 'complete' });

    const view = (await sandbox.request('GET', `/v1/checkout/sessions/${session.id}`, undefined, AUTH)).json;
    expect(view).toMatchObject({ status: 'complete', payment_status: 'captured' });
    expect(view.payment_id).toMatch(/^pay_/);
    expect(eventTypes(view.payment_id)).toEqual(['payment.authorized', 'payment.captured']);
    const completed = sandbox.store.events.list({ limit: 100 }).find((e) => e.type === 'checkout.session.completed')!;
    expect(completed.resourceId).toBe(session.id);
    expect(completed.data).toMatchObject({
      id: session.id,
      status: 'complete',
      payment_id: view.payment_id,
      payment: { id: view.payment_id, amount: 1050, currency: 'EUR' },
    });
    // The event carries the payment as the API shows it (at completion: authorized, not yet captured), not the stored record.
    const shown = (await sandbox.request('GET', `/v1/events/${completed.id}`, undefined, AUTH)).json;
    const payment = (await sandbox.request('GET', `/v1/payments/${view.payment_id}`, undefined, AUTH)).json;
    expect(shown.data.object).toBe('checkout.session');
    expect(Object.keys(shown.data.payment).sort()).toEqual(Object.keys(payment).sort());
    expect(shown.data.payment).toEqual({ ...payment, status: 'authorized', amount_captured: 0, updated_at: shown.data.payment.updated_at });

    const again = await sandbox.request('GET', `/pay/${session.token}`);
    expect(again.status).toBe(410);
    expect(again.text).toContain('This payment link has already been used');
    expect((await card(session, '4242424242424242')).status).toBe(410);
    expect((await sandbox.request('POST', `/v1/checkout/sessions/${session.id}/expire`, undefined, AUTH)).status).toBe(409);
  });

  it('a declined card shows the decline, the session stays open, and another card then succeeds', async () => {
    const session = await createSession();
    const declined = await card(session, '4000000000009995');
    expect(declined.status).toBe(303);
    expect(declined.headers.get('location')).toBe(`/pay/${session.token}?method=card`);
    const page = await sandbox.request('GET', declined.headers.get('location')!);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Your card was declined: the card has insufficient funds');
    expect((await card(session, '4242424242424242')).headers.get('location')).toContain('status=complete');
    const payments = sandbox.store.payments.list({ merchantId: 'mer_sandbox', limit: 10 });
    expect(payments.map((p) => p.status).sort()).toEqual(['captured', 'declined']);
  });

  it('a 3-D Secure card goes to the authentication page and comes back through /return to the merchant', async () => {
    const session = await createSession();
    const res = await card(session, '4000000000003220');
    expect(res.status).toBe(303);
    const authUrl = new URL(res.headers.get('location')!);
    expect(authUrl.pathname).toMatch(/^\/authenticate\//);
    expect((await sandbox.request('GET', `/v1/checkout/sessions/${session.id}`, undefined, AUTH)).json.status).toBe('open');

    const token = authUrl.pathname.split('/').pop()!;
    const challenge = sandbox.services.auth.complete(token, 'pass');
    const back = new URL(sandbox.services.auth.returnUrl(challenge));
    expect(back.pathname).toBe(`/pay/${session.token}/return`);
    // The session completed when the payment was authorized, before the customer came back.
    expect((await sandbox.request('GET', `/v1/checkout/sessions/${session.id}`, undefined, AUTH)).json.status).toBe('complete');
    const ret = await sandbox.request('GET', back.pathname + back.search);
    expect(ret.status).toBe(303);
    expect(ret.headers.get('location')).toContain(`session_id=${session.id}&status=complete`);
  });

  it('a failed 3-D Secure check sends the customer back to the form with the reason', async () => {
    const session = await createSession();
    const res = await card(session, '4000000000003220');
    const token = new URL(res.headers.get('location')!).pathname.split('/').pop()!;
    sandbox.services.auth.complete(token, 'fail');
    const ret = await sandbox.request('GET', `/pay/${session.token}/return`);
    expect(ret.headers.get('location')).toBe(`/pay/${session.token}?method=card`);
    expect((await sandbox.request('GET', `/pay/${session.token}?method=card`)).text).toContain('3-D Secure authentication failed');
  });

  it('expiring a session cancels a card payment still waiting for 3-D Secure', async () => {
    const session = await createSession();
    await card(session, '4000000000003220');
    await sandbox.request('POST', `/v1/checkout/sessions/${session.id}/expire`, undefined, AUTH);
    const [payment] = sandbox.store.payments.list({ merchantId: 'mer_sandbox', limit: 10 });
    expect(payment!.status).toBe('canceled');
  });

  it('iDEAL: choose a bank, then Failed returns to the page with the failure; Paid completes', async () => {
    const session = await createSession();
    const chosen = await post(`/pay/${session.token}/ideal`, { csrf: session.csrf, bank: 'INGBNL2A' });
    expect(chosen.headers.get('location')).toBe(`/pay/${session.token}/ideal`);
    const picker = await sandbox.request('GET', `/pay/${session.token}/ideal`);
    expect(picker.text).toContain('ING');
    for (const label of ['Paid', 'Failed', 'Canceled', 'Expired', 'Open']) expect(picker.text).toContain(`<strong>${label}</strong>`);

    const failed = await post(`/pay/${session.token}/ideal/outcome`, { csrf: session.csrf, outcome: 'failed' });
    expect(failed.headers.get('location')).toBe(`/pay/${session.token}?method=ideal`);
    expect((await sandbox.request('GET', `/pay/${session.token}?method=ideal`)).text).toContain('Your iDEAL payment failed');

    await post(`/pay/${session.token}/ideal`, { csrf: session.csrf, bank: 'RABONL2U' });
    const paid = await post(`/pay/${session.token}/ideal/outcome`, { csrf: session.csrf, outcome: 'paid' });
    expect(paid.headers.get('location')).toContain('status=complete');
    const statuses = sandbox.store.payments.list({ merchantId: 'mer_sandbox', limit: 10 }).map((p) => `${p.method}:${p.status}`);
    expect(statuses.sort()).toEqual(['ideal:captured', 'ideal:declined']);
  });

  it('iDEAL: an unknown bank is a 400 on the page', async () => {
    const session = await createSession();
    const res = await post(`/pay/${session.token}/ideal`, { csrf: session.csrf, bank: 'EVILNL2A' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Choose your bank from the list');
  });

  it('iDEAL: Open sends the customer back with status=open; the payment expires with the session', async () => {
    const session = await createSession({ expires_in: 600 });
    await post(`/pay/${session.token}/ideal`, { csrf: session.csrf, bank: 'INGBNL2A' });
    const open = await post(`/pay/${session.token}/ideal/outcome`, { csrf: session.csrf, outcome: 'open' });
    expect(open.headers.get('location')).toContain(`session_id=${session.id}&status=open`);
    expect((await sandbox.request('GET', `/pay/${session.token}`)).text).toContain('is still open');
    sandbox.clock.advance(600_000);
    sandbox.services.jobs.runDue();
    const [payment] = sandbox.store.payments.list({ merchantId: 'mer_sandbox', limit: 10 });
    expect(payment!.status).toBe('expired');
    expect(eventTypes(payment!.id)).toEqual(['payment.requires_action', 'payment.expired']);
  });

  it('SEPA: an IBAN failing mod-97 is a clear 400; a valid one is processing, then succeeds', async () => {
    const session = await createSession();
    const bad = await post(`/pay/${session.token}/sepa`, { csrf: session.csrf, iban: 'AT61 1904 3002 3457 3202', holder: 'Jane Doe' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('check digits do not match');
    expect(bad.text).toContain('value="AT61 1904 3002 3457 3202"');

    const ok = await post(`/pay/${session.token}/sepa`, { csrf: session.csrf, iban: 'at61 1904 3002 3457 3201', holder: 'Jane Doe' });
    expect(ok.headers.get('location')).toContain('status=complete');
    const view = (await sandbox.request('GET', `/v1/checkout/sessions/${session.id}`, undefined, AUTH)).json;
    expect(view).toMatchObject({ status: 'complete', payment_status: 'processing' });
    sandbox.clock.advance(5_000);
    sandbox.services.jobs.runDue();
    expect((await sandbox.request('GET', `/v1/checkout/sessions/${session.id}`, undefined, AUTH)).json.payment_status).toBe('captured');
    expect(eventTypes(view.payment_id)).toEqual(['payment.authorized', 'payment.captured']);
  });

  it('SEPA: AT86... fails after processing; AT32... succeeds only after 3 minutes', async () => {
    const failing = await createSession();
    await post(`/pay/${failing.token}/sepa`, { csrf: failing.csrf, iban: 'AT861904300235473202', holder: 'Jane Doe' });
    const slow = await createSession();
    await post(`/pay/${slow.token}/sepa`, { csrf: slow.csrf, iban: 'AT321904300235473204', holder: 'Jane Doe' });
    const status = async (s: Json) => (await sandbox.request('GET', `/v1/checkout/sessions/${s.id}`, undefined, AUTH)).json.payment_status;

    sandbox.clock.advance(5_000);
    sandbox.services.jobs.runDue();
    expect(await status(failing)).toBe('declined');
    expect(await status(slow)).toBe('processing');
    sandbox.clock.advance(175_000);
    sandbox.services.jobs.runDue();
    expect(await status(slow)).toBe('captured');
  });
});
