// The S2S card flow in-process: the spec §2.2 answer, each test card's outcome, the 3-D Secure
// page (OTP, tries, cancel, single use), expiry on the sandbox clock, the control endpoint and
// authstatus.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import type { Json } from '../helpers/json.js';

let sandbox: TestSandbox;
beforeEach(() => {
  sandbox = createTestSandbox();
});
afterEach(() => sandbox.close());

const SPEC_2_2_FIELDS = [
  'transID',
  'reference',
  'order_status',
  'status',
  'response',
  'bill_amt',
  'bill_currency',
  'mop',
  'ccno',
  'tdate',
  'authurl',
  'authstatus',
  'authdata',
];
const AUTHSTATUS_FIELDS = ['transID', 'reference', 'order_status', 'status', 'response', 'bill_amt', 'bill_currency', 'tdate'];
const TDATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;

async function pay(overrides: Record<string, unknown> = {}) {
  const res = await sandbox.request('POST', '/api/s2s', s2sBody(overrides));
  expect(res.status).toBe(200);
  return res.json as Record<string, string>;
}

/** The webhooks queued for a transaction, oldest first. */
function deliveriesOf(transID: string) {
  return sandbox.db
    .prepare(`SELECT d.url, d.content_type AS contentType, d.body, d.status, e.type FROM deliveries d JOIN events e ON e.id = d.event_id
      WHERE e.resource_id = ? ORDER BY d.created_at, d.rowid`)
    .all(transID) as Array<{ url: string; contentType: string; body: string; status: string; type: string }>;
}

const path = (url: string) => new URL(url).pathname;

/** Opens the page at authurl and returns its HTML and the form's CSRF token. */
async function openPage(authurl: string) {
  const res = await sandbox.request('GET', path(authurl));
  const csrf = /name="csrf" value="([^"]+)"/.exec(res.text)?.[1];
  return { ...res, csrf };
}

/** Submits the OTP form (or another action) as a browser would. */
async function submit(authurl: string, fields: Record<string, string>) {
  return sandbox.request('POST', path(authurl), new URLSearchParams(fields).toString(), {
    'content-type': 'application/x-www-form-urlencoded',
  });
}

async function status(transID: string) {
  return (await sandbox.request('GET', `/_sandbox/transactions/${transID}`)).json as Record<string, Json>;
}

describe('the 200 answer of POST /api/s2s', () => {
  it('has exactly the fields of spec §2.2, all strings', async () => {
    const body = await pay();
    expect(Object.keys(body).sort()).toEqual([...SPEC_2_2_FIELDS].sort());
    for (const field of SPEC_2_2_FIELDS) expect(typeof body[field]).toBe('string');
  });

  it('describes a pending 3-D Secure payment', async () => {
    const body = await pay({ reference: 'ord_1001', bill_amt: '10.5', ccno: '4000000000003220' });
    expect(body).toMatchObject({
      reference: 'ord_1001',
      order_status: '0',
      status: 'Pending',
      bill_amt: '10.50',
      bill_currency: 'EUR',
      mop: 'VISA',
      ccno: '400000XXXXXX3220',
      tdate: '2026-01-15 12:00:00.000000',
    });
    expect(body.transID).toMatch(/^[1-9]\d{14}$/);
    expect(body.tdate).toMatch(TDATE);
    expect(body.response).toMatch(/authurl/);
    expect(body.authurl).toMatch(/^http:\/\/sandbox\.test\/authenticate\/[A-Za-z0-9_-]{43}$/);
    expect(body.authstatus).toMatch(/^http:\/\/sandbox\.test\/api\/s2s\/status\/[A-Za-z0-9_-]{43}$/);
    expect(JSON.parse(Buffer.from(body.authdata!, 'base64').toString('utf8'))).toMatchObject({
      transID: body.transID,
      acsURL: body.authurl,
    });
    expect(deliveriesOf(body.transID!)).toEqual([]);
  });

  it.each([
    ['5555555555554444', 'MASTERCARD', '555555XXXXXX4444'],
    ['378282246310005', 'AMEX', '378282XXXXX0005'],
    ['6011111111111117', 'DISCOVER', '601111XXXXXX1117'],
    ['3566002020360505', 'JCB', '356600XXXXXX0505'],
    ['4000 0000 0000 3220', 'VISA', '400000XXXXXX3220'],
  ])('card %s -> mop %s, ccno %s', async (ccno, mop, masked) => {
    const body = await pay({ ccno, ccvv: mop === 'AMEX' ? '1234' : '123' });
    expect(body.mop).toBe(mop);
    expect(body.ccno).toBe(masked);
  });

  it('gives every payment its own transID and unguessable URLs', async () => {
    const a = await pay();
    const b = await pay();
    expect(a.transID).not.toBe(b.transID);
    expect(a.authurl).not.toBe(b.authurl);
    expect(a.authstatus).not.toBe(b.authstatus);
  });

  it('gives a new payment an unused transID even when stored ones run ahead of the clock (an import, a clock stepped back)', async () => {
    const first = await pay();
    // Occupy the next 50 transIDs the generator would hand out, as an imported snapshot could.
    const copy = sandbox.db.prepare(`INSERT INTO transactions (trans_id, merchant_id, ter_no, reference, amount, currency, mop, brand, ccno,
      order_status, response, product_name, webhook_url, return_url, bill_ip, customer, encryption_method, outcome, status_token, refunded, created_at, updated_at)
      SELECT ?, merchant_id, ter_no, ?, amount, currency, mop, brand, ccno, order_status, response, product_name, webhook_url, return_url, bill_ip,
      customer, encryption_method, outcome, ?, refunded, created_at, updated_at FROM transactions WHERE trans_id = ?`);
    const base = Number(first.transID);
    const taken = new Set<string>();
    for (let i = 1; i <= 50; i++) {
      const id = String(base + i);
      copy.run(id, `imported-${i}`, `imported-token-${i}`, first.transID);
      taken.add(id);
    }
    // The clock stands still, so the generator's next ids are exactly the ones taken above.
    vi.useFakeTimers({ toFake: ['Date'], now: Math.floor(base / 100) });
    let next: Record<string, string>;
    try {
      next = await pay();
    } finally {
      vi.useRealTimers();
    }
    expect(next.transID).toMatch(/^[1-9]\d{14}$/);
    expect(taken.has(next.transID)).toBe(false);
    expect((await sandbox.request('GET', `/_sandbox/transactions/${next.transID}`)).json).toMatchObject({ reference: next.reference });
  });
});

describe('test cards', () => {
  it('4242424242424242 is frictionless: Test Approved (25), no authurl, webhook queued', async () => {
    const body = await pay({ ccno: '4242424242424242', reference: 'ord_frictionless' });
    expect(body).toMatchObject({
      order_status: '25',
      status: 'Test Approved',
      authurl: '',
      authdata: '',
      mop: 'VISA',
      ccno: '424242XXXXXX4242',
    });
    const [delivery, ...rest] = deliveriesOf(body.transID!);
    expect(rest).toEqual([]);
    expect(delivery).toMatchObject({
      url: 'http://127.0.0.1:9/webhooks',
      contentType: 'application/x-www-form-urlencoded',
      status: 'pending',
      type: 'payment.authorized',
    });
    expect(Object.fromEntries(new URLSearchParams(delivery!.body))).toMatchObject({
      transID: body.transID,
      reference: 'ord_frictionless',
      order_status: '25',
      status: 'Test Approved',
      bill_amt: '10.50',
      bill_currency: 'EUR',
      mop: 'VISA',
      ccno: '424242XXXXXX4242',
    });
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000009987', 'lost_card'],
    ['4000000000009979', 'stolen_card'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
    ['4000000000000119', 'processing_error'],
  ])('%s is Test Declined (24) %s at once, with its webhook', async (ccno, code) => {
    const body = await pay({ ccno });
    expect(body).toMatchObject({ order_status: '24', status: 'Test Declined', authurl: '' });
    expect(body.response.startsWith(`${code}: `)).toBe(true);
    const deliveries = deliveriesOf(body.transID!);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.type).toBe('payment.declined');
    expect(new URLSearchParams(deliveries[0]!.body).get('order_status')).toBe('24');
    expect(new URLSearchParams(deliveries[0]!.body).get('response')).toBe(body.response);
  });

  it.each([['4000000000005126'], ['4000000000000259']])('%s approves at once', async (ccno) => {
    const body = await pay({ ccno });
    expect(body).toMatchObject({ order_status: '25', status: 'Test Approved', authurl: '' });
    expect(deliveriesOf(body.transID!)).toHaveLength(1);
  });

  it('4999990000000015 stays Pending with no authurl and never sends a webhook, even a day later', async () => {
    const body = await pay({ ccno: '4999990000000015' });
    expect(body).toMatchObject({ order_status: '0', status: 'Pending', authurl: '' });
    sandbox.clock.advance(24 * 60 * 60_000);
    sandbox.services.jobs.runDue();
    expect(await status(body.transID!)).toMatchObject({ order_status: '0', status: 'Pending' });
    expect(deliveriesOf(body.transID!)).toEqual([]);
  });

  it('an unlisted Luhn-valid card asks for 3-D Secure', async () => {
    const body = await pay({ ccno: '5555555555554444' });
    expect(body.status).toBe('Pending');
    expect(body.authurl).not.toBe('');
  });
});

describe('the authentication page at authurl', () => {
  it('shows the merchant, the amount and the masked card, never the full number', async () => {
    const body = await pay({ bill_amt: '10.50', ccno: '4000000000003220' });
    const page = await openPage(body.authurl!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('Sandbox Merchant');
    expect(page.text).toContain('€10.50');
    expect(page.text).toContain('400000XXXXXX3220');
    expect(page.text).not.toContain('4000000000003220');
    expect(page.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // A merchant may show the page in an iframe, as real 3-D Secure challenges are (docs/s2s.md).
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors *');
  });

  it('shows amounts in the currency: JPY without decimals', async () => {
    const body = await pay({ bill_currency: 'JPY', bill_amt: '1000' });
    expect((await openPage(body.authurl!)).text).toContain('¥1,000');
  });

  it('refuses a form with the wrong CSRF token (403) and changes nothing', async () => {
    const body = await pay();
    const res = await submit(body.authurl!, { csrf: 'forged', otp: '123456', action: 'submit' });
    expect(res.status).toBe(403);
    expect(res.text).toMatch(/not sent from this page/);
    expect(await status(body.transID!)).toMatchObject({ order_status: '0', authentication: { state: 'open' } });
    expect(deliveriesOf(body.transID!)).toEqual([]);
  });

  it('counts down tries on a wrong OTP, then declines after the third', async () => {
    const body = await pay();
    const { csrf } = await openPage(body.authurl!);
    const first = await submit(body.authurl!, { csrf: csrf!, otp: '111111', action: 'submit' });
    expect(first.status).toBe(422);
    expect(first.text).toContain('That code is incorrect. 2 tries left.');
    const second = await submit(body.authurl!, { csrf: csrf!, otp: '222222', action: 'submit' });
    expect(second.text).toContain('1 try left.');
    expect(await status(body.transID!)).toMatchObject({ order_status: '0' });
    const third = await submit(body.authurl!, { csrf: csrf!, otp: '333333', action: 'submit' });
    expect(third.status).toBe(303);
    const back = new URL(third.headers.get('location')!);
    expect(back.searchParams.get('status')).toBe('Test Declined');
    expect(back.searchParams.get('order_status')).toBe('24');
    expect(await status(body.transID!)).toMatchObject({
      order_status: '24',
      response: 'authentication_failed: 3-D Secure authentication failed',
    });
    expect(deliveriesOf(body.transID!).map((d) => d.type)).toEqual(['payment.declined']);
  });

  it('asks again, without costing a try, when the code is not 4-8 digits', async () => {
    const body = await pay();
    const { csrf } = await openPage(body.authurl!);
    const res = await submit(body.authurl!, { csrf: csrf!, otp: 'abc', action: 'submit' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('4 to 8 digits');
    expect((await openPage(body.authurl!)).text).toContain('(3 left)');
  });

  it('declines at once on OTP 000000', async () => {
    const body = await pay();
    const { csrf } = await openPage(body.authurl!);
    const res = await submit(body.authurl!, { csrf: csrf!, otp: '000000', action: 'submit' });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!).searchParams.get('order_status')).toBe('24');
    expect(await status(body.transID!)).toMatchObject({ status: 'Test Declined', authentication: { state: 'failed' } });
  });

  it('approves on OTP 123456 and sends the customer to return_url with transID, reference, status and order_status (303)', async () => {
    const body = await pay({ reference: 'ord_otp_ok', return_url: 'https://shop.example/return?cart=7' });
    const { csrf } = await openPage(body.authurl!);
    const res = await submit(body.authurl!, { csrf: csrf!, otp: '123456', action: 'submit' });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe('https://shop.example/return');
    expect(Object.fromEntries(back.searchParams)).toEqual({
      cart: '7',
      transID: body.transID,
      reference: 'ord_otp_ok',
      status: 'Test Approved',
      order_status: '25',
    });
    expect(await status(body.transID!)).toMatchObject({
      order_status: '25',
      status: 'Test Approved',
      response: 'Transaction approved (test mode)',
    });
    const deliveries = deliveriesOf(body.transID!);
    expect(deliveries.map((d) => d.type)).toEqual(['payment.authorized']);
    expect(new URLSearchParams(deliveries[0]!.body).get('status')).toBe('Test Approved');
  });

  it('4000008400001629: the challenge passes, then the issuer declines card_declined', async () => {
    const body = await pay({ ccno: '4000008400001629' });
    expect(body.status).toBe('Pending');
    const { csrf } = await openPage(body.authurl!);
    const res = await submit(body.authurl!, { csrf: csrf!, otp: '123456', action: 'submit' });
    expect(new URL(res.headers.get('location')!).searchParams.get('status')).toBe('Test Declined');
    expect(await status(body.transID!)).toMatchObject({ order_status: '24', authentication: { state: 'passed' } });
    expect((await status(body.transID!)).response).toMatch(/^card_declined: /);
  });

  it('is single-use: a revisit shows the result, and posting again changes nothing', async () => {
    const body = await pay();
    const { csrf } = await openPage(body.authurl!);
    await submit(body.authurl!, { csrf: csrf!, otp: '123456', action: 'submit' });
    const before = { t: await status(body.transID!), d: deliveriesOf(body.transID!) };

    const revisit = await openPage(body.authurl!);
    expect(revisit.status).toBe(200);
    expect(revisit.text).toContain('Authentication complete');
    expect(revisit.text).toContain('visiting it again changes nothing');
    expect(revisit.csrf).toBeUndefined();

    for (const otp of ['000000', '123456']) {
      const again = await submit(body.authurl!, { csrf: csrf!, otp, action: 'submit' });
      expect(again.status).toBe(409);
      expect(again.text).toContain('Authentication complete');
    }
    const cancel = await submit(body.authurl!, { csrf: csrf!, action: 'cancel' });
    expect(cancel.status).toBe(409);
    expect({ t: await status(body.transID!), d: deliveriesOf(body.transID!) }).toEqual(before);
  });

  it('Cancel sets Cancelled (3) and sends the customer back', async () => {
    const body = await pay();
    const { csrf } = await openPage(body.authurl!);
    const res = await submit(body.authurl!, { csrf: csrf!, action: 'cancel' });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(back.searchParams.get('status')).toBe('Cancelled');
    expect(back.searchParams.get('order_status')).toBe('3');
    expect(await status(body.transID!)).toMatchObject({ order_status: '3', status: 'Cancelled' });
    expect(deliveriesOf(body.transID!).map((d) => d.type)).toEqual(['payment.canceled']);
    expect((await openPage(body.authurl!)).text).toContain('Payment cancelled');
  });

  it('answers 404 with a page for an unknown token', async () => {
    const res = await sandbox.request('GET', '/authenticate/not-a-real-token');
    expect(res.status).toBe(404);
    expect(res.text).toContain('Link not valid');
  });

  it('escapes what the merchant sent: reference, product name and customer name', async () => {
    const evil = '<script>alert(1)</script>';
    const body = await pay({ reference: `ord_${evil}`, product_name: `Mug ${evil}`, fullname: `Jane ${evil}` });
    const page = await openPage(body.authurl!);
    expect(page.text).not.toContain(evil);
    expect(page.text).not.toMatch(/<script(?! src="\/assets\/local-time\.js")/i);
    expect(page.text).toContain('ord_&lt;script&gt;alert(1)&lt;/script&gt;');
    const { csrf } = page;
    await submit(body.authurl!, { csrf: csrf!, otp: '123456', action: 'submit' });
    const result = await openPage(body.authurl!);
    expect(result.text).not.toMatch(/<script(?! src="\/assets\/local-time\.js")/i);
    expect(result.text).toContain('ord_&lt;script&gt;');
  });

  it('escapes a return_url with quotes in the result page link', async () => {
    const body = await pay({ return_url: 'https://shop.example/back?x="><img/src=x/onerror=alert(1)>' });
    const { csrf } = await openPage(body.authurl!);
    await submit(body.authurl!, { csrf: csrf!, action: 'cancel' });
    const result = await openPage(body.authurl!);
    expect(result.text).not.toContain('"><img');
    expect(result.text).not.toMatch(/<img/i);
  });
});

describe('expiry on the sandbox clock', () => {
  it('keeps the page open before the challenge lifetime (15 min) is over', async () => {
    const body = await pay();
    sandbox.clock.advance(15 * 60_000 - 1);
    expect(sandbox.services.jobs.runDue()).toBe(0);
    expect(await status(body.transID!)).toMatchObject({ order_status: '0' });
    expect((await openPage(body.authurl!)).csrf).toBeDefined();
  });

  it('expires the transaction (22) once 15 minutes have passed, with its webhook', async () => {
    const body = await pay();
    sandbox.clock.advance(15 * 60_000 + 1);
    expect(sandbox.services.jobs.runDue()).toBe(1);
    expect(await status(body.transID!)).toMatchObject({ order_status: '22', status: 'Expired', authentication: { state: 'expired' } });
    const deliveries = deliveriesOf(body.transID!);
    expect(deliveries.map((d) => d.type)).toEqual(['payment.expired']);
    expect(new URLSearchParams(deliveries[0]!.body).get('order_status')).toBe('22');
    expect((await openPage(body.authurl!)).text).toContain('This authentication has expired');
  });

  it('a clock that jumps an hour past the lifetime dates the expiry at the end of the lifetime, by the job or by opening the page', async () => {
    const byJob = await pay();
    sandbox.clock.advance(60 * 60_000);
    expect(sandbox.services.jobs.runDue()).toBe(1);
    expect(await status(byJob.transID!)).toMatchObject({
      order_status: '22',
      tdate: '2026-01-15 12:15:00.000000',
      authentication: { state: 'expired', expires_at: '2026-01-15T12:15:00.000Z' },
    });

    const byPage = await pay();
    sandbox.clock.advance(60 * 60_000);
    // Opened before its job ran: expired on the spot, dated when it ran out (13:15), not now (14:00).
    expect((await openPage(byPage.authurl!)).text).toContain('This authentication has expired');
    expect(await status(byPage.transID!)).toMatchObject({ order_status: '22', tdate: '2026-01-15 13:15:00.000000' });
  });

  it('expires a page opened after its time ran out, even before the job runs', async () => {
    const body = await pay();
    sandbox.clock.advance(16 * 60_000);
    const page = await openPage(body.authurl!);
    expect(page.text).toContain('This authentication has expired');
    expect(await status(body.transID!)).toMatchObject({ order_status: '22' });
    expect(deliveriesOf(body.transID!)).toHaveLength(1);
    // The expiry job was cancelled with the challenge: nothing is left to run.
    expect(sandbox.services.jobs.runDue()).toBe(0);
    expect(deliveriesOf(body.transID!)).toHaveLength(1);
    expect(await status(body.transID!)).toMatchObject({ order_status: '22', authentication: { state: 'expired' } });
  });

  it('a control authenticate after the lifetime ran out answers 409 and leaves the transaction Expired with its webhook', async () => {
    const body = await pay();
    sandbox.clock.advance(16 * 60_000);
    const res = await sandbox.request('POST', `/_sandbox/transactions/${body.transID}/authenticate`, { outcome: 'approve' });
    expect(res.status).toBe(409);
    expect(res.json.error.message).toContain('expired');
    expect(await status(body.transID!)).toMatchObject({ order_status: '22', authentication: { state: 'expired' } });
    expect(deliveriesOf(body.transID!).map((d) => d.type)).toEqual(['payment.expired']);
  });

  it('honours --challenge-lifetime', async () => {
    sandbox.close();
    sandbox = createTestSandbox({ challengeLifetime: '2m' });
    const body = await pay();
    sandbox.clock.advance(2 * 60_000);
    sandbox.services.jobs.runDue();
    expect(await status(body.transID!)).toMatchObject({ order_status: '22' });
  });

  it('POST /_sandbox/clock/advance expires it too', async () => {
    const body = await pay();
    const res = await sandbox.request('POST', '/_sandbox/clock/advance', { duration: '20m' });
    expect(res.status).toBe(200);
    expect(res.json.jobs_run).toBe(1);
    expect(await status(body.transID!)).toMatchObject({ order_status: '22' });
  });
});

describe('POST /_sandbox/transactions/:transID/authenticate', () => {
  it.each([
    ['approve', '25', 'Test Approved', 'passed', 'payment.authorized'],
    ['decline', '24', 'Test Declined', 'failed', 'payment.declined'],
    ['cancel', '3', 'Cancelled', 'cancelled', 'payment.canceled'],
    ['expire', '22', 'Expired', 'expired', 'payment.expired'],
  ])('%s -> %s %s, with its webhook', async (outcome, code, text, state, event) => {
    const body = await pay({ reference: `ord_ctl_${outcome}` });
    const res = await sandbox.request('POST', `/_sandbox/transactions/${body.transID}/authenticate`, { outcome });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      transID: body.transID,
      reference: `ord_ctl_${outcome}`,
      order_status: code,
      status: text,
      authentication: state,
    });
    const back = new URL(res.json.redirect_url);
    expect(back.searchParams.get('order_status')).toBe(code);
    expect(back.searchParams.get('transID')).toBe(body.transID);
    expect(deliveriesOf(body.transID!).map((d) => d.type)).toEqual([event]);
  });

  it('answers 404 for an unknown transID', async () => {
    const res = await sandbox.request('POST', '/_sandbox/transactions/999999999999999/authenticate', { outcome: 'approve' });
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'resource_missing', param: 'transID' });
  });

  it.each([[{ outcome: 'maybe' }], [{ outcome: 'APPROVE' }], [{}]])('answers 400 naming outcome for %j', async (payload) => {
    const body = await pay();
    const res = await sandbox.request('POST', `/_sandbox/transactions/${body.transID}/authenticate`, payload);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ param: 'outcome' });
    expect(res.json.error.message).toMatch(/approve/);
    expect(await status(body.transID!)).toMatchObject({ order_status: '0' });
  });

  it('answers 400 for a body that is not JSON', async () => {
    const body = await pay();
    const res = await sandbox.request('POST', `/_sandbox/transactions/${body.transID}/authenticate`, 'outcome=approve', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('unsupported_content_type');
  });

  it('answers 409 once the authentication is over, and changes nothing', async () => {
    const body = await pay();
    await sandbox.request('POST', `/_sandbox/transactions/${body.transID}/authenticate`, { outcome: 'approve' });
    const res = await sandbox.request('POST', `/_sandbox/transactions/${body.transID}/authenticate`, { outcome: 'decline' });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ type: 'conflict_error', code: 'invalid_state' });
    expect(res.json.error.message).toContain('passed');
    expect(await status(body.transID!)).toMatchObject({ order_status: '25' });
    expect(deliveriesOf(body.transID!)).toHaveLength(1);
  });

  it('answers 409 for a frictionless payment that had no authentication', async () => {
    const body = await pay({ ccno: '4242424242424242' });
    const res = await sandbox.request('POST', `/_sandbox/transactions/${body.transID}/authenticate`, { outcome: 'decline' });
    expect(res.status).toBe(409);
    expect(res.json.error.message).toContain('Test Approved');
  });
});

describe('GET authstatus', () => {
  it('returns exactly the current transID, reference, order_status, status, response, bill_amt, bill_currency and tdate', async () => {
    const body = await pay({ reference: 'ord_status', bill_amt: '42' });
    const url = path(body.authstatus!);
    const pending = await sandbox.request('GET', url);
    expect(pending.status).toBe(200);
    expect(Object.keys(pending.json).sort()).toEqual([...AUTHSTATUS_FIELDS].sort());
    expect(pending.json).toMatchObject({
      transID: body.transID,
      reference: 'ord_status',
      order_status: '0',
      status: 'Pending',
      bill_amt: '42.00',
      bill_currency: 'EUR',
    });
    expect(pending.json.tdate).toMatch(TDATE);

    sandbox.clock.advance(61_000);
    await sandbox.request('POST', `/_sandbox/transactions/${body.transID}/authenticate`, { outcome: 'approve' });
    const after = await sandbox.request('GET', url);
    expect(after.json).toMatchObject({
      order_status: '25',
      status: 'Test Approved',
      response: 'Transaction approved (test mode)',
      tdate: '2026-01-15 12:01:01.000000',
    });
  });

  it('answers 404 in the error shape for an unknown token', async () => {
    const res = await sandbox.request('GET', '/api/s2s/status/nope');
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ type: 'not_found_error', code: 'resource_missing' });
  });
});
