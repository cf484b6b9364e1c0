// Every payment mode end to end on a real server: the merchant creates the payment, the
// "customer" follows authurl and submits the page's form over HTTP, is sent back to return_url,
// and the signed webhook with the final status reaches the fake merchant.
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/signatures/signing.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { CREDS, s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const env = useSandboxWithMerchant({ flags: { retry: 'none' } });

/** Creates a payment in `mop` (no card fields) whose webhooks go to /hook/<name>. */
async function create(mop: string, name: string, extra: Record<string, unknown> = {}) {
  const body = s2sBody({
    mop,
    ccno: undefined,
    ccvv: undefined,
    month: undefined,
    year: undefined,
    webhook_url: `${env.merchant.url}/hook/${name}`,
    return_url: 'https://shop.example/return',
    ...extra,
  });
  const res = await env.http.post('/api/s2s', body);
  expect(res.status).toBe(200);
  return res.json;
}

/** Opens the page like a browser, then submits its form with `fields`; returns the redirect target. */
async function customer(
  authurl: string,
  fields: Record<string, string>,
): Promise<{ page: string; location: string | null; status: number }> {
  const { pathname, search } = new URL(authurl);
  const page = (await env.http.get(pathname + search)).text;
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  expect(csrf, 'the page carries a CSRF token').toBeTruthy();
  const res = await env.http.postForm(pathname + search, { csrf: csrf!, ...fields });
  return { page, location: res.headers.get('location'), status: res.status };
}

/** The signed webhook the merchant got for `name`, as fields. */
async function webhook(name: string, orderStatus: string) {
  const hook = await waitFor(
    () => env.merchant.at(`/hook/${name}`).find((r) => new URLSearchParams(r.body).get('order_status') === orderStatus),
    `webhook ${name} ${orderStatus}`,
  );
  expect(verifySignature(hook.headers['x-sandbox-signature'] as string, CREDS.secret, hook.body)).toBe(true);
  return Object.fromEntries(new URLSearchParams(hook.body));
}

describe('page flows', () => {
  const flows: Array<[string, string, Record<string, unknown>, Record<string, string>, string, string]> = [
    ['NB approve', 'NB', {}, { action: 'approve', bank: 'SBI' }, '25', 'Test Approved'],
    ['NB decline', 'NB', {}, { action: 'decline', bank: 'AXIS' }, '24', 'Test Declined'],
    ['WALLET approve', 'WALLET', {}, { action: 'approve', wallet: 'PHONEPE' }, '25', 'Test Approved'],
    ['WALLET cancel', 'WALLET', {}, { action: 'cancel' }, '3', 'Cancelled'],
    ['UPI wait then approve', 'UPICOLLECT', { vpa: 'customer@okbank' }, { action: 'approve' }, '25', 'Test Approved'],
    ['UPI wait then decline', 'UPICOLLECT', { vpa: 'customer@okbank' }, { action: 'decline' }, '24', 'Test Declined'],
    ['QR paid', 'QRINTENT', { bill_currency: 'INR' }, { action: 'approve' }, '25', 'Test Approved'],
    ['QR failed', 'QRINTENT', { bill_currency: 'INR' }, { action: 'decline' }, '24', 'Test Declined'],
  ];
  for (const [what, mop, extra, fields, orderStatus, statusText] of flows) {
    it(what, async () => {
      const name = what.replace(/\W+/g, '-');
      const created = await create(mop, name, extra);
      expect(created).toMatchObject({ status: 'Pending', mop, ccno: '' });
      expect(created.authurl.startsWith(env.sandbox.url)).toBe(true);
      const done = await customer(created.authurl, fields);
      expect(done.status).toBe(303);
      const back = new URL(done.location!);
      expect(back.origin + back.pathname).toBe('https://shop.example/return');
      expect(Object.fromEntries(back.searchParams)).toMatchObject({
        transID: created.transID,
        order_status: orderStatus,
        status: statusText,
      });
      expect(await webhook(name, orderStatus)).toMatchObject({ transID: created.transID, mop, status: statusText, ccno: '' });
      if (mop === 'QRINTENT') expect(done.page).toMatch(/<svg [^>]*viewBox=/);
      if (mop === 'UPICOLLECT') expect(done.page).toContain('customer@okbank');
    });
  }
});

describe('UPI collect without a page', () => {
  it('success@ approves and failure@ declines at once, each with its webhook', async () => {
    const ok = await create('UPICOLLECT', 'upi-success', { vpa: 'success@upi' });
    const no = await create('UPICOLLECT', 'upi-failure', { vpa: 'failure@upi' });
    expect([ok.status, no.status]).toEqual(['Test Approved', 'Test Declined']);
    expect(await webhook('upi-success', '25')).toMatchObject({ transID: ok.transID });
    expect((await webhook('upi-failure', '24')).response).toContain('declined_by_customer');
  });

  it('a waiting collect request expires when the window runs out (sandbox clock advanced 5 minutes)', async () => {
    const created = await create('UPICOLLECT', 'upi-expire', { vpa: 'slow.customer@okbank' });
    const advanced = await env.http.post('/_sandbox/clock/advance', { duration: '5m' });
    expect(advanced.status).toBe(200);
    expect(await webhook('upi-expire', '22')).toMatchObject({ transID: created.transID, status: 'Expired' });
    const page = (await env.http.get(new URL(created.authurl).pathname)).text;
    expect(page).toContain('This authentication has expired');
  });
});
