// Every payment mode's page flow in-process: NB and WALLET (choose, then Approve / Decline /
// Cancel), UPICOLLECT (success@ / failure@ / waiting page with time left / expiry), QRINTENT (a
// QR code of the upi://pay intent, simulate paid / failed). No card fields are sent for these.
import { afterEach, describe, expect, it } from 'vitest';
import { qrSvg } from '../../src/pages/authenticate/challenge-kinds.js';
import { createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';

let sb: TestSandbox;
afterEach(() => sb?.close());

/** A payment in `mop` without any card field. */
function modeBody(mop: string, extra: Record<string, unknown> = {}) {
  return s2sBody({ mop, ccno: undefined, ccvv: undefined, month: undefined, year: undefined, ...extra });
}

async function create(mop: string, extra: Record<string, unknown> = {}) {
  const res = await sb.request('POST', '/api/s2s', modeBody(mop, extra));
  expect(res.status).toBe(200);
  return res.json;
}

const pathOf = (url: string) => new URL(url).pathname;

async function page(authurl: string) {
  const res = await sb.request('GET', pathOf(authurl));
  return { status: res.status, html: res.text, csrf: /name="csrf" value="([^"]+)"/.exec(res.text)?.[1] ?? '' };
}

/** Submits the page's form like a browser: csrf from the page plus the given fields. */
async function submit(authurl: string, fields: Record<string, string>) {
  const { csrf } = await page(authurl);
  return sb.request('POST', pathOf(authurl), new URLSearchParams({ csrf, ...fields }).toString(), {
    'content-type': 'application/x-www-form-urlencoded',
  });
}

const status = async (transID: string) => (await sb.request('GET', `/_sandbox/transactions/${transID}`)).json;

function lastWebhook(transID: string) {
  const delivery = sb.store.deliveries.list({ limit: 20 }).find((d) => d.body.includes(transID));
  return delivery && Object.fromEntries(new URLSearchParams(delivery.body));
}

describe('NB (netbanking)', () => {
  it('creates a pending payment whose page offers a choice of banks', async () => {
    sb = createTestSandbox();
    const created = await create('NB');
    expect(created).toMatchObject({ status: 'Pending', mop: 'NB', ccno: '' });
    const { status: code, html } = await page(created.authurl);
    expect(code).toBe(200);
    expect(html).toContain('Pay with netbanking');
    expect(html).toMatch(/<select id="choice" name="bank" required="">/);
    for (const bank of ['HDFC', 'ICICI', 'SBI', 'AXIS', 'TESTBANK']) expect(html).toContain(`value="${bank}"`);
    expect(html).toMatch(/value="approve"[\s\S]*value="decline"[\s\S]*value="cancel"/);
  });

  it('Approve without a bank is refused on the page; with a bank it approves and returns to the shop', async () => {
    sb = createTestSandbox();
    const created = await create('NB');
    const refused = await submit(created.authurl, { action: 'approve' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Choose your bank first.');
    const done = await submit(created.authurl, { action: 'approve', bank: 'HDFC' });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toContain('status=Test+Approved');
    expect(await status(created.transID)).toMatchObject({ order_status: '25', mop: 'NB' });
    expect(lastWebhook(created.transID)).toMatchObject({ order_status: '25', mop: 'NB', ccno: '' });
  });

  it('Decline is Test Declined by the customer; the bank field preselects a bank', async () => {
    sb = createTestSandbox();
    const created = await create('NB', { bank: 'icici' });
    expect((await page(created.authurl)).html).toMatch(/<option value="ICICI" selected="">/);
    await submit(created.authurl, { action: 'decline', bank: 'ICICI' });
    expect(await status(created.transID)).toMatchObject({
      order_status: '24',
      response: 'declined_by_customer: the customer declined the payment request',
    });
  });
});

describe('WALLET', () => {
  it('choose a wallet and approve', async () => {
    sb = createTestSandbox();
    const created = await create('WALLET');
    const { html } = await page(created.authurl);
    expect(html).toContain('Pay with your wallet');
    expect(html).toContain('name="wallet"');
    expect((await submit(created.authurl, { action: 'decline' })).text).toContain('Choose your wallet first.');
    await submit(created.authurl, { action: 'approve', wallet: 'PAYTM' });
    expect((await status(created.transID)).status).toBe('Test Approved');
  });

  it('Cancel needs no wallet and cancels the payment', async () => {
    sb = createTestSandbox();
    const created = await create('WALLET');
    const res = await submit(created.authurl, { action: 'cancel' });
    expect(res.status).toBe(303);
    expect(await status(created.transID)).toMatchObject({ order_status: '3', status: 'Cancelled' });
  });
});

describe('UPICOLLECT', () => {
  it('success@ approves at once, with no page', async () => {
    sb = createTestSandbox();
    const created = await create('UPICOLLECT', { vpa: 'success@upi' });
    expect(created).toMatchObject({ status: 'Test Approved', authurl: '', mop: 'UPICOLLECT' });
  });

  it('failure@ declines at once', async () => {
    sb = createTestSandbox();
    const created = await create('UPICOLLECT', { vpa: 'failure@upi' });
    expect(created).toMatchObject({ status: 'Test Declined', authurl: '' });
    expect(created.response).toContain('declined_by_customer');
  });

  it('vpa is required, and must look like a VPA', async () => {
    sb = createTestSandbox();
    const missing = await sb.request('POST', '/api/s2s', modeBody('UPICOLLECT'));
    expect(missing.status).toBe(400);
    expect(missing.json.error).toMatchObject({ param: 'vpa' });
    expect(missing.json.error.message).toContain('success@upi');
    const bad = await sb.request('POST', '/api/s2s', modeBody('UPICOLLECT', { vpa: 'not a vpa' }));
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe('vpa');
  });

  it('any other VPA waits: the page shows the VPA and the time left, then Approve', async () => {
    sb = createTestSandbox();
    const created = await create('UPICOLLECT', { vpa: 'jane.doe@okbank' });
    expect(created.status).toBe('Pending');
    let { html } = await page(created.authurl);
    expect(html).toContain('Waiting for approval in your UPI app');
    expect(html).toContain('jane.doe@okbank');
    expect(html).toMatch(/Time left: <strong>5:00<\/strong>/);
    sb.clock.advance(2 * 60_000 + 30_000);
    ({ html } = await page(created.authurl));
    expect(html).toMatch(/Time left: <strong>2:30<\/strong>/);
    await submit(created.authurl, { action: 'approve' });
    expect((await status(created.transID)).status).toBe('Test Approved');
  });

  it('waiting, then the collect window runs out: Expired (22) with its webhook', async () => {
    sb = createTestSandbox();
    const created = await create('UPICOLLECT', { vpa: 'jane@okbank' });
    await sb.request('POST', '/_sandbox/clock/advance', { duration: '5m' });
    expect(await status(created.transID)).toMatchObject({ order_status: '22', status: 'Expired' });
    expect((await status(created.transID)).response).toContain('collect window');
    expect(lastWebhook(created.transID)).toMatchObject({ order_status: '22' });
    const { html } = await page(created.authurl);
    expect(html).toContain('This authentication has expired');
    expect(html).not.toContain('value="approve"');
  });

  it('the collect window follows --upi-window', async () => {
    sb = createTestSandbox({ upiWindow: '90s' });
    const created = await create('UPICOLLECT', { vpa: 'jane@okbank' });
    expect((await page(created.authurl)).html).toMatch(/Time left: <strong>1:30<\/strong>/);
    await sb.request('POST', '/_sandbox/clock/advance', { duration: '89s' });
    expect((await status(created.transID)).status).toBe('Pending');
    await sb.request('POST', '/_sandbox/clock/advance', { duration: '1s' });
    expect((await status(created.transID)).status).toBe('Expired');
  });
});

describe('QRINTENT', () => {
  it('shows an SVG QR code of exactly the upi://pay intent, and the intent as text', async () => {
    sb = createTestSandbox();
    const created = await create('QRINTENT', { bill_amt: '249.00', bill_currency: 'INR' });
    const { html } = await page(created.authurl);
    const intent = `upi://pay?pa=mer.sandbox@sandbox&pn=Sandbox%20Merchant&am=249.00&cu=INR&tr=${created.transID}`;
    expect(html).toContain('Scan to pay with UPI');
    expect(html).toContain(`<code>${intent.replace(/&/g, '&amp;')}</code>`);
    // The image is the library's rendering of that very text, so any UPI app scans this intent.
    expect(html).toContain(await qrSvg(intent));
    expect(html).toMatch(/<div class="qr" role="img" aria-label="[^"]+"><svg /);
    expect(html).toMatch(/value="approve">Simulate: paid<[\s\S]*value="decline"[^>]*>Simulate: failed</);
  });

  it('Simulate: paid approves; Simulate: failed declines', async () => {
    sb = createTestSandbox();
    const paid = await create('QRINTENT');
    const failed = await create('QRINTENT');
    await submit(paid.authurl, { action: 'approve' });
    await submit(failed.authurl, { action: 'decline' });
    expect((await status(paid.transID)).status).toBe('Test Approved');
    expect((await status(failed.transID)).status).toBe('Test Declined');
  });

  it('merchant input on the page is escaped, never markup', async () => {
    sb = createTestSandbox();
    const created = await create('QRINTENT', { reference: '<script>alert(1)</script>' });
    const { html } = await page(created.authurl);
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('shared rules of the pages', () => {
  it('a form without the page CSRF token changes nothing (403)', async () => {
    sb = createTestSandbox();
    const created = await create('NB');
    const res = await sb.request('POST', pathOf(created.authurl), 'action=approve&bank=HDFC&csrf=forged', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(403);
    expect((await status(created.transID)).status).toBe('Pending');
  });

  it('a used page is single-use: a second Approve is a 409 showing the result', async () => {
    sb = createTestSandbox();
    const created = await create('QRINTENT');
    const { csrf } = await page(created.authurl);
    const form = new URLSearchParams({ csrf, action: 'decline' }).toString();
    await sb.request('POST', pathOf(created.authurl), form, { 'content-type': 'application/x-www-form-urlencoded' });
    const again = await sb.request('POST', pathOf(created.authurl), form.replace('decline', 'approve'), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(again.status).toBe(409);
    expect((await status(created.transID)).status).toBe('Test Declined');
  });
});
