// Hostile input on the pages a customer sees. XSS: a payload sent through every field a page
// shows (S2S reference, product_name, fullname; /v1/ description and reference; checkout
// reference and logo URL; the merchant name from a fixtures file; every dashboard column) never
// appears unescaped, and `javascript:` URLs are refused before they can reach an href or src.
// CSRF: page form POSTs without the token or with a wrong one are refused (403 on customer pages,
// 401 on the dashboard) and change nothing.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { dbFingerprint } from '../fuzz/fuzz-kit.js';
import { csrfOf } from '../helpers/seed-objects.js';

const XSS = `"><script>alert(1)</script><img src=x onerror=alert(2)>'`;
/** How hono/jsx writes the payload into text and attributes. */
const ESCAPED = '&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&#39;';
const BEARER = { authorization: `Bearer ${CREDS.apiKey}` };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let sb: TestSandbox;
afterEach(() => sb?.close());

/** Fails when the payload (or any live markup of it) is in the HTML; passes `shown` times escaped. */
function expectEscaped(html: string, minShown = 1) {
  expect(html).not.toContain(XSS);
  // The one script tag a customer page has is its own local-time script.
  expect(html).not.toMatch(/<script(?! src="\/assets\/local-time\.js")/i);
  expect(html).not.toMatch(/<img src=x/i);
  expect(html.split(ESCAPED).length - 1).toBeGreaterThanOrEqual(minShown);
}

/** A fixtures file whose merchant is named with the payload. */
function hostileFixtures(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-xss-'));
  const file = join(dir, 'fixtures.json');
  writeFileSync(
    file,
    JSON.stringify({
      merchants: [
        {
          id: 'mer_sandbox',
          name: XSS,
          webhook_secret: 'whsec_test_sandbox',
          api_keys: ['sk_test_sandbox'],
          terminals: [{ terNO: 1001, public_key: 'pk_test_1001', private_key: 'pv_test_1001' }],
        },
      ],
    }),
  );
  return file;
}

describe('XSS through every field a page shows', () => {
  it.each([
    ['CC', { ccno: '4000000000003220' }],
    ['NB', { mop: 'NB', ccno: undefined, ccvv: undefined, month: undefined, year: undefined }],
    ['UPICOLLECT', { mop: 'UPICOLLECT', ccno: undefined, ccvv: undefined, month: undefined, year: undefined, vpa: 'someone@bank' }],
  ])('S2S %s: reference, product_name, fullname and the merchant name are escaped on the authentication page', async (_mop, extra) => {
    sb = createTestSandbox({ fixtures: hostileFixtures() });
    const body = Object.fromEntries(
      Object.entries(s2sBody({ reference: XSS.slice(0, 60), product_name: XSS, fullname: XSS, ...extra })).filter(
        ([, v]) => v !== undefined,
      ),
    );
    const created = await sb.request('POST', '/api/s2s', body);
    expect(created.status, created.text).toBe(200);
    const path = new URL(created.json.authurl).pathname;
    const page = await sb.request('GET', path);
    expect(page.status).toBe(200);
    // The merchant name is on the page; the reference is cut to 64 characters by the schema.
    expectEscaped(page.text, 1);
    expect(page.text).not.toContain(XSS.slice(0, 60));
    // The finished page shows the same fields and a link back: still escaped.
    const done = await sb.request('POST', `/_sandbox/transactions/${created.json.transID}/authenticate`, { outcome: 'approve' });
    expect(done.status).toBe(200);
    expectEscaped((await sb.request('GET', path)).text, 1);
  });

  it('a /v1/ payment 3-D Secure page escapes reference and description', async () => {
    sb = createTestSandbox();
    const res = await sb.request(
      'POST',
      '/v1/payments',
      {
        amount: 500,
        currency: 'EUR',
        card: { number: '4000000000003220', exp_month: 12, exp_year: 2030, cvc: '123' },
        reference: XSS.slice(0, 64),
        description: XSS,
        return_url: 'https://shop.example/r',
      },
      BEARER,
    );
    expect(res.status, res.text).toBe(200);
    const url: string =
      res.json.next_action?.redirect_url ??
      res.json.next_action?.url ??
      JSON.stringify(res.json).match(/http:\/\/sandbox\.test\/authenticate\/[^"]+/)![0];
    const page = await sb.request('GET', new URL(url).pathname);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<script>alert(1)');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('the checkout page escapes the reference, the merchant name and the logo URL attribute', async () => {
    sb = createTestSandbox({ fixtures: hostileFixtures() });
    const logo = `https://shop.example/logo.png?"><script>alert(1)</script>`;
    const res = await sb.request(
      'POST',
      '/v1/checkout/sessions',
      {
        amount: 2500,
        currency: 'EUR',
        methods: ['card', 'ideal', 'sepa'],
        return_url: 'https://shop.example/return',
        reference: XSS.slice(0, 64),
        branding: { logo_url: logo },
      },
      BEARER,
    );
    expect(res.status, res.text).toBe(200);
    const path = new URL(res.json.url).pathname;
    for (const method of ['card', 'ideal', 'sepa']) {
      const page = await sb.request('GET', `${path}?method=${method}`);
      expect(page.status).toBe(200);
      expectEscaped(page.text, 1);
      expect(page.text).not.toContain(logo);
      expect(page.text).toContain('src="https://shop.example/logo.png?&quot;&gt;&lt;script&gt;');
    }
    // Form values the customer typed are echoed back escaped on a refused form.
    const csrf = await csrfOf(sb, path);
    const refused = await sb.request(
      'POST',
      `${path}/card`,
      new URLSearchParams({ csrf, number: XSS, expiry: XSS, cvc: '1', name: XSS }).toString(),
      FORM,
    );
    expect(refused.status).toBe(400);
    expect(refused.text).not.toContain('<script>alert(1)');
    const sepa = await sb.request('POST', `${path}/sepa`, new URLSearchParams({ csrf, iban: XSS, holder: XSS }).toString(), FORM);
    expect(sepa.status).toBe(400);
    expectEscaped(sepa.text, 1);
  });

  it.each([
    [
      'checkout branding.logo_url',
      '/v1/checkout/sessions',
      {
        amount: 100,
        currency: 'EUR',
        methods: ['card'],
        return_url: 'https://shop.example/r',
        branding: { logo_url: 'javascript:alert(1)' },
      },
      'branding.logo_url',
    ],
    [
      'checkout return_url',
      '/v1/checkout/sessions',
      { amount: 100, currency: 'EUR', methods: ['card'], return_url: 'javascript:alert(1)' },
      'return_url',
    ],
    [
      '/v1/payments return_url',
      '/v1/payments',
      {
        amount: 100,
        currency: 'EUR',
        card: { number: '4000000000003220', exp_month: 12, exp_year: 2030, cvc: '123' },
        return_url: 'javascript:alert(1)//https://x',
      },
      'return_url',
    ],
    ['S2S return_url', '/api/s2s', s2sBody({ return_url: 'javascript:alert(1)' }), 'return_url'],
    ['S2S return_url (data:)', '/api/s2s', s2sBody({ return_url: 'data:text/html,<script>alert(1)</script>' }), 'return_url'],
  ])('%s with a javascript: URL is a 400 naming the field, and nothing is stored', async (_name, path, body, param) => {
    sb = createTestSandbox();
    const before = dbFingerprint(sb);
    const res = await sb.request('POST', path, body, BEARER);
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe(param);
    expect(dbFingerprint(sb)).toEqual(before);
  });

  it('pages send a Content-Security-Policy without inline script; only the authentication page may be framed', async () => {
    sb = createTestSandbox();
    const created = await sb.request('POST', '/api/s2s', s2sBody());
    const page = await sb.request('GET', new URL(created.json.authurl).pathname);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain('frame-ancestors *');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('XSS through the dashboard columns', () => {
  it('references, webhook URLs, event data and attempt bodies are escaped on every tab and the delivery page', async () => {
    sb = createTestSandbox({ fixtures: hostileFixtures() });
    const hookUrl = `http://127.0.0.1:9/h?x=${encodeURIComponent(XSS)}`;
    const s2s = await sb.request(
      'POST',
      '/api/s2s',
      s2sBody({
        reference: XSS.slice(0, 64),
        product_name: XSS,
        fullname: XSS,
        ccno: '4242424242424242',
        webhook_url: `http://127.0.0.1:9/h?x="><script>alert(1)</script>`,
      }),
    );
    expect(s2s.status, s2s.text).toBe(200);
    const pending = await sb.request('POST', '/api/s2s', s2sBody({ reference: `${XSS.slice(0, 50)}-2` }));
    expect(pending.status).toBe(200);
    const pay = await sb.request(
      'POST',
      '/v1/payments',
      {
        amount: 100,
        currency: 'EUR',
        card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' },
        reference: XSS.slice(0, 64),
        description: XSS,
        metadata: { note: XSS },
        webhook_url: 'http://127.0.0.1:9/w',
      },
      BEARER,
    );
    expect(pay.status, pay.text).toBe(200);
    const session = await sb.request(
      'POST',
      '/v1/checkout/sessions',
      { amount: 100, currency: 'EUR', methods: ['card'], return_url: 'https://shop.example/r', reference: XSS.slice(0, 64) },
      BEARER,
    );
    expect(session.status).toBe(200);
    expect(hookUrl).toContain('%3Cscript');
    for (const tab of ['transactions', 'payments', 'sessions', 'events', 'deliveries']) {
      for (const path of [
        `/_sandbox/?tab=${tab}`,
        `/_sandbox/dashboard/fragment?tab=${tab}&q=${encodeURIComponent(XSS)}`,
        `/_sandbox/dashboard/fragment?tab=${tab}`,
      ]) {
        const res = await sb.request('GET', path);
        expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(200);
        expect(res.text, path).not.toContain('<script>alert(1)');
        expect(res.text, path).not.toMatch(/<img src=x/i);
      }
    }
    const list = await sb.request('GET', '/_sandbox/?tab=transactions');
    expect(list.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const delivery = sb.db.prepare('SELECT id FROM deliveries ORDER BY rowid LIMIT 1').pluck().get() as string;
    const page = await sb.request('GET', `/_sandbox/dashboard/deliveries/${delivery}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<script>alert(1)');
    expect(page.text).not.toMatch(/<img src=x/i);
    // The only scripts are the dashboard's own file.
    for (const match of page.text.matchAll(/<script[^>]*>/gi)) expect(match[0]).toMatch(/src="\/_sandbox\/assets\/dashboard\.js"/);
  });
});

describe('CSRF on page forms', () => {
  it('dashboard Approve/Decline and Replay without the right token are refused and change nothing', async () => {
    sb = createTestSandbox();
    const pending = await sb.request('POST', '/api/s2s', s2sBody());
    const approved = await sb.request('POST', '/api/s2s', s2sBody({ ccno: '4242424242424242' }));
    expect(approved.status).toBe(200);
    const delivery = sb.db.prepare('SELECT id FROM deliveries ORDER BY rowid LIMIT 1').pluck().get() as string;
    const list = await sb.request('GET', '/_sandbox/?tab=transactions');
    const csrf = /name="csrf" value="([^"]+)"/.exec(list.text)?.[1];
    expect(csrf).toBeDefined();
    const wrong = csrf!.slice(0, -1) + (csrf!.endsWith('A') ? 'B' : 'A');
    for (const token of [undefined, '', wrong, 'short']) {
      const before = dbFingerprint(sb);
      const fields = {
        subject: 'transaction',
        id: pending.json.transID,
        outcome: 'approve',
        ...(token === undefined ? {} : { csrf: token }),
      };
      const auth = await sb.request('POST', '/_sandbox/dashboard/authenticate', new URLSearchParams(fields).toString(), FORM);
      expect(auth.status, auth.text).toBe(401);
      expect(auth.json.error.param).toBe('csrf');
      const replay = await sb.request(
        'POST',
        `/_sandbox/dashboard/deliveries/${delivery}/replay`,
        new URLSearchParams(token === undefined ? {} : { csrf: token }).toString(),
        FORM,
      );
      // Replay validates the form first: a missing csrf field is a 400 parameter_missing, a wrong one a 401.
      expect(replay.status).toBe(token === undefined ? 400 : 401);
      expect(dbFingerprint(sb)).toEqual(before);
    }
    const ok = await sb.request(
      'POST',
      '/_sandbox/dashboard/authenticate',
      new URLSearchParams({ csrf: csrf!, subject: 'transaction', id: pending.json.transID, outcome: 'approve' }).toString(),
      FORM,
    );
    expect(ok.status).toBe(303);
  });

  /** Sends the form with no csrf, an empty one, a wrong one of the right length, and one of another page. */
  async function refusedEverywhere(path: string, fields: Record<string, string>, realCsrf: string, otherCsrf: string) {
    const wrong = realCsrf.slice(0, -1) + (realCsrf.endsWith('A') ? 'B' : 'A');
    for (const csrf of [undefined, '', wrong, 'short', otherCsrf]) {
      const before = dbFingerprint(sb);
      const form = new URLSearchParams(csrf === undefined ? fields : { ...fields, csrf }).toString();
      const res = await sb.request('POST', path, form, FORM);
      expect(res.status, `${path} csrf=${csrf}`).toBe(403);
      expect(res.text).toContain('This form has expired or was not sent from this page');
      expect(dbFingerprint(sb), `${path} csrf=${csrf} changed the database`).toEqual(before);
    }
  }

  it('POST /authenticate/:token: approve, OTP and cancel without the right token are refused and change nothing', async () => {
    sb = createTestSandbox();
    const card = await sb.request('POST', '/api/s2s', s2sBody());
    const bank = await sb.request(
      'POST',
      '/api/s2s',
      s2sBody({ mop: 'NB', ccno: undefined, ccvv: undefined, month: undefined, year: undefined }),
    );
    const cardPath = new URL(card.json.authurl).pathname;
    const bankPath = new URL(bank.json.authurl).pathname;
    const cardCsrf = await csrfOf(sb, cardPath);
    const bankCsrf = await csrfOf(sb, bankPath);
    await refusedEverywhere(cardPath, { otp: '123456', action: 'submit' }, cardCsrf, bankCsrf);
    await refusedEverywhere(cardPath, { action: 'cancel' }, cardCsrf, bankCsrf);
    await refusedEverywhere(bankPath, { action: 'approve' }, bankCsrf, cardCsrf);
    // A malformed multipart body (no boundary) is refused the same way, not a 500.
    const multipart = await sb.request('POST', cardPath, 'otp=123456', { 'content-type': 'multipart/form-data' });
    expect(multipart.status).toBe(403);
    const status = await sb.request('GET', `/_sandbox/transactions/${card.json.transID}`);
    expect(status.json.status).toBe('Pending');
    // With the right token the same form works (so the refusals above were about the token).
    const ok = await sb.request(
      'POST',
      cardPath,
      new URLSearchParams({ csrf: cardCsrf, otp: '123456', action: 'submit' }).toString(),
      FORM,
    );
    expect(ok.status).toBe(303);
  });

  it('POST /pay/:token/{card,ideal,ideal/outcome,sepa} without the right token are refused and change nothing', async () => {
    sb = createTestSandbox();
    const make = async () =>
      (
        await sb.request(
          'POST',
          '/v1/checkout/sessions',
          { amount: 2500, currency: 'EUR', methods: ['card', 'ideal', 'sepa'], return_url: 'https://shop.example/return' },
          BEARER,
        )
      ).json;
    const session = await make();
    const other = await make();
    const path = new URL(session.url).pathname;
    const csrf = await csrfOf(sb, path);
    const otherCsrf = await csrfOf(sb, new URL(other.url).pathname);
    await refusedEverywhere(`${path}/card`, { number: '4242424242424242', expiry: '12/30', cvc: '123', name: 'Jane Doe' }, csrf, otherCsrf);
    await refusedEverywhere(`${path}/sepa`, { iban: 'NL91ABNA0417164300', holder: 'Jane Doe' }, csrf, otherCsrf);
    await refusedEverywhere(`${path}/ideal`, { bank: 'INGBNL2A' }, csrf, otherCsrf);
    await refusedEverywhere(`${path}/ideal/outcome`, { outcome: 'paid' }, csrf, otherCsrf);
    const view = await sb.request('GET', `/v1/checkout/sessions/${session.id}`, undefined, BEARER);
    expect(view.json.status).toBe('open');
    const ok = await sb.request(
      'POST',
      `${path}/card`,
      new URLSearchParams({ csrf, number: '4242424242424242', expiry: '12/30', cvc: '123', name: 'Jane Doe' }).toString(),
      FORM,
    );
    expect(ok.status).toBe(303);
  });
});
