// One page of every kind a customer or a developer sees, made through the public API of a running
// sandbox: the 3-D Secure OTP page, the bank, wallet, UPI and QR pages, their result page, hosted
// checkout (card, iDEAL, SEPA), the iDEAL test bank, used and expired links, the 404s, and every
// dashboard tab with a delivery page. Shared by the accessibility and the page-rendering tests.
import { expect } from 'vitest';
import { DASHBOARD_TABS } from '../../src/domain/vocabularies.js';
import { CREDS, s2sBody } from '../helpers/test-sandbox.js';

const BEARER = { authorization: `Bearer ${CREDS.apiKey}` };
const NO_CARD = { ccno: undefined, ccvv: undefined, month: undefined, year: undefined };

/** A page to visit: a name for messages and its path on the sandbox. */
export interface PageKind {
  name: string;
  path: string;
}

async function call(base: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const init: RequestInit = { method, headers: { ...headers }, redirect: 'manual' };
  if (typeof body === 'string') init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(base + path, init);
  const text = await res.text();
  expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(400);
  return { res, text, json: text.startsWith('{') ? JSON.parse(text) : undefined };
}

const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

async function s2sPage(base: string, overrides: Record<string, unknown>): Promise<{ path: string; transID: string }> {
  const body = Object.fromEntries(Object.entries(s2sBody(overrides)).filter(([, v]) => v !== undefined));
  const { json } = await call(base, 'POST', '/api/s2s', body);
  return { path: pathOf(json.authurl), transID: json.transID };
}

async function session(base: string, body: Record<string, unknown>): Promise<string> {
  const { json } = await call(
    base,
    'POST',
    '/v1/checkout/sessions',
    { amount: 2500, currency: 'EUR', return_url: 'http://127.0.0.1:9/return', reference: 'order-1042', ...body },
    BEARER,
  );
  return pathOf(json.url);
}

/** Posts a page's form as a browser would (its CSRF token read from the page). */
async function postForm(base: string, pagePath: string, action: string, fields: Record<string, string>) {
  const { text } = await call(base, 'GET', pagePath, undefined);
  const csrf = /name="csrf" value="([^"]+)"/.exec(text)![1]!;
  return call(base, 'POST', action, new URLSearchParams({ csrf, ...fields }).toString(), {
    'content-type': 'application/x-www-form-urlencoded',
  });
}

/** Creates one page of every customer-facing kind on the sandbox at `base`. */
export async function customerPages(base: string): Promise<PageKind[]> {
  // First the link that expires, then the clock moves past it (well inside every other page's lifetime).
  const expired = await session(base, { methods: ['card'], expires_in: 60 });
  await call(base, 'POST', '/_sandbox/clock/advance', { duration: '2m' });
  const used = await session(base, { methods: ['sepa'] });
  await postForm(base, used, `${used}/sepa`, { iban: 'DE89370400440532013000', holder: 'Jane Doe' });
  const checkout = await session(base, { methods: ['card', 'ideal', 'sepa'], customer_email: 'jane@example.com' });
  const ideal = await session(base, { methods: ['ideal'] });
  await postForm(base, ideal, `${ideal}/ideal`, { bank: 'INGBNL2A' });
  const finished = await s2sPage(base, { ccno: '4000000000003220' });
  await call(base, 'POST', `/_sandbox/transactions/${finished.transID}/authenticate`, { outcome: 'approve' });
  return [
    { name: '3-D Secure OTP', path: (await s2sPage(base, { ccno: '4000000000003220' })).path },
    { name: 'netbanking', path: (await s2sPage(base, { mop: 'NB', ...NO_CARD })).path },
    { name: 'wallet', path: (await s2sPage(base, { mop: 'WALLET', ...NO_CARD })).path },
    { name: 'UPI collect', path: (await s2sPage(base, { mop: 'UPICOLLECT', vpa: 'jane@upi', ...NO_CARD })).path },
    { name: 'UPI QR', path: (await s2sPage(base, { mop: 'QRINTENT', ...NO_CARD })).path },
    { name: 'authentication result', path: finished.path },
    { name: 'checkout card', path: `${checkout.split('?')[0]}?method=card` },
    { name: 'checkout iDEAL', path: `${checkout.split('?')[0]}?method=ideal` },
    { name: 'checkout SEPA', path: `${checkout.split('?')[0]}?method=sepa` },
    { name: 'iDEAL test bank', path: `${ideal.split('?')[0]}/ideal` },
    { name: 'used link', path: used },
    { name: 'expired link', path: expired },
    { name: 'authentication 404', path: '/authenticate/no-such-token' },
    { name: 'checkout 404', path: '/pay/no-such-token' },
  ];
}

/**
 * Every dashboard tab (from the dashboard's own list), a delivery's page, the Faults page and a
 * payment's page (the 3-D Secure payment customerPages approved: requests, changes and a webhook
 * attempt in its diagram); call after customerPages so the lists have rows.
 */
export async function dashboardPages(base: string): Promise<PageKind[]> {
  const { json } = await call(base, 'GET', '/_sandbox/deliveries', undefined);
  const delivery = json.data[0]?.id as string | undefined;
  expect(delivery, 'a delivery to show').toBeDefined();
  const approved = await call(base, 'GET', '/_sandbox/events?type=payment.authorized&limit=1', undefined);
  const payment = approved.json.data[0]?.resource_id as string | undefined;
  expect(payment, 'a payment to draw').toBeDefined();
  return [
    ...DASHBOARD_TABS.map((tab) => ({ name: `dashboard ${tab}`, path: `/_sandbox/?tab=${tab}` })),
    { name: 'dashboard delivery', path: `/_sandbox/dashboard/deliveries/${encodeURIComponent(delivery!)}` },
    { name: 'dashboard faults', path: '/_sandbox/dashboard/faults' },
    { name: 'dashboard payment', path: `/_sandbox/dashboard/payments/${encodeURIComponent(payment!)}` },
    { name: 'dashboard payment 404', path: '/_sandbox/dashboard/payments/pay_nothing' },
  ];
}
