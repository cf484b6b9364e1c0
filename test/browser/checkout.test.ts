// The hosted checkout page in real Chromium (Debian's, via playwright-core and test/helpers/browser.ts),
// against a real sandbox on port 0 and a fake merchant that receives the webhooks and the
// customer's return. Requests to anything but 127.0.0.1 are blocked and counted: the page must
// load nothing from the internet. Screenshots go to test-artifacts/.
import http from 'node:http';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, localContext } from '../helpers/browser.js';
import type { RunningServer } from '../../src/server/start-server.js';
import { verifySignature } from '../../src/signatures/signing.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { waitFor } from '../helpers/wait-for.js';
import { CREDS, startTestServer } from '../helpers/test-sandbox.js';
import { api } from '../helpers/http.js';
import type { Json } from '../helpers/json.js';

const ARTIFACTS = 'test-artifacts';
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="40" viewBox="0 0 160 40"><rect width="40" height="40" rx="10" fill="#0f766e"/><path d="M11 27 L20 12 L29 27 Z" fill="#fff"/><text x="50" y="27" font-family="Georgia, serif" font-size="18" fill="#0f766e">Tea Shop</text></svg>';

let server: RunningServer;
let merchant: FakeMerchant;
let logoServer: http.Server;
let logoUrl: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let blocked: string[];

beforeAll(async () => {
  server = await startTestServer({ retry: 'none' });
  merchant = await startFakeMerchant();
  logoServer = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(LOGO_SVG));
  await new Promise<void>((resolve) => logoServer.listen(0, '127.0.0.1', resolve));
  logoUrl = `http://127.0.0.1:${(logoServer.address() as AddressInfo).port}/logo.svg`;
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await merchant?.close();
  await new Promise<void>((resolve) => (logoServer ? logoServer.close(() => resolve()) : resolve()));
  await server?.close();
});

beforeEach(async () => {
  ({ context, blocked } = await localContext(browser, { viewport: { width: 1280, height: 800 } }));
  page = await context.newPage();
});

afterEach(async () => {
  await context.close();
  expect(blocked, 'requests that left 127.0.0.1').toEqual([]);
});

/** The seeded merchant's bearer API on the test's sandbox. */
const v1 = () => api(server.url, { authorization: `Bearer ${CREDS.apiKey}` });

let orders = 0;
async function createSession(overrides: Record<string, unknown> = {}) {
  orders++;
  const res = await v1().post('/v1/checkout/sessions', {
    amount: 2450,
    currency: 'EUR',
    methods: ['card', 'ideal', 'sepa'],
    branding: { logo_url: logoUrl },
    return_url: `${merchant.url}/return`,
    webhook_url: `${merchant.url}/hooks/${orders}`,
    reference: `order-${1000 + orders}`,
    customer_email: 'jane@example.com',
    ...overrides,
  });
  expect(res.status).toBe(200);
  return { ...res.json, hooks: `/hooks/${orders}` };
}

/** The signed JSON events the session's webhook_url received, verified. */
function eventsAt(path: string): Array<{ event: string; data: Json }> {
  return merchant.at(path).map((r) => {
    expect(verifySignature(r.headers['x-sandbox-signature'] as string, CREDS.secret, r.body)).toBe(true);
    return JSON.parse(r.body);
  });
}

async function fillCard(number: string) {
  await page.fill('#card-number', number);
  await page.fill('#card-expiry', '12 / 34');
  await page.fill('#card-cvc', '123');
  await page.fill('#card-name', 'Jane Doe');
}

const returned = (sessionId: string) => (url: URL) => url.pathname === '/return' && url.searchParams.get('session_id') === sessionId;

describe('hosted checkout in Chromium', () => {
  it('card with a 3-D Secure challenge: through to the redirect and the signed webhook', async () => {
    const session = await createSession();
    await page.goto(session.url);
    await expect(page.textContent('.amount')).resolves.toContain('€24.50');
    await fillCard('4000 0000 0000 3220');
    await page.click('button[type=submit]');
    await page.waitForURL(/\/authenticate\//);
    await page.fill('#otp', '123456');
    await page.click('button[value=submit]');
    await page.waitForURL(returned(session.id));
    expect(new URL(page.url()).searchParams.get('status')).toBe('complete');

    const events = await waitFor(() => {
      const got = eventsAt(session.hooks);
      return got.some((e) => e.event === 'checkout.session.completed') && got.some((e) => e.event === 'payment.captured') ? got : undefined;
    }, 'checkout.session.completed and payment.captured at the webhook_url');
    const completed = events.find((e) => e.event === 'checkout.session.completed')!;
    expect(completed.data).toMatchObject({ id: session.id, status: 'complete', payment: { amount: 2450, currency: 'EUR' } });
    expect(events.map((e) => e.event)).toEqual(
      expect.arrayContaining(['payment.requires_action', 'payment.authorized', 'payment.captured']),
    );
    expect((await v1().get(`/v1/checkout/sessions/${session.id}`)).json).toMatchObject({
      status: 'complete',
      payment_id: completed.data.payment_id,
    });
  });

  it('a declined card shows the decline, then another card succeeds', async () => {
    const session = await createSession();
    await page.goto(session.url);
    await fillCard('4000000000000002');
    await page.click('button[type=submit]');
    await page.waitForSelector('.notice.error');
    expect(await page.textContent('.notice.error')).toContain('Your card was declined: the issuer declined the card');
    expect((await v1().get(`/v1/checkout/sessions/${session.id}`)).json.status).toBe('open');
    await fillCard('4242424242424242');
    await page.click('button[type=submit]');
    await page.waitForURL(returned(session.id));
    await waitFor(() => eventsAt(session.hooks).some((e) => e.event === 'checkout.session.completed'), 'checkout.session.completed');
    expect(eventsAt(session.hooks).map((e) => e.event)).toContain('payment.declined');
  });

  it('iDEAL: choose a bank, pick Failed, and the page says so', async () => {
    const session = await createSession();
    await page.goto(session.url);
    await page.click('nav.tabs >> text=iDEAL');
    await page.selectOption('#ideal-bank', 'INGBNL2A');
    await page.click('button[type=submit]');
    await page.waitForURL(/\/ideal$/);
    expect(await page.textContent('.bank-name')).toBe('ING');
    await page.check('#outcome-failed');
    await page.click('button[type=submit]');
    await page.waitForSelector('.notice.error');
    expect(await page.textContent('.notice.error')).toContain('Your iDEAL payment failed');
    await waitFor(() => eventsAt(session.hooks).some((e) => e.event === 'payment.declined'), 'payment.declined');
    expect((await v1().get(`/v1/checkout/sessions/${session.id}`)).json.status).toBe('open');
  });

  it('SEPA: processing first, then succeeded once the sandbox clock passes the settlement', async () => {
    const session = await createSession();
    await page.goto(`${session.url}?method=sepa`);
    await page.fill('#sepa-iban', 'AT61 1904 3002 3457 3201');
    await page.fill('#sepa-holder', 'Jane Doe');
    await page.click('button[type=submit]');
    await page.waitForURL(returned(session.id));
    expect((await v1().get(`/v1/checkout/sessions/${session.id}`)).json).toMatchObject({
      status: 'complete',
      payment_status: 'processing',
    });

    const advanced = await fetch(`${server.url}/_sandbox/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ duration: '5s' }),
    });
    expect(advanced.status).toBe(200);
    await waitFor(
      async () => (await v1().get(`/v1/checkout/sessions/${session.id}`)).json.payment_status === 'captured',
      'the SEPA payment to settle',
    );
    await waitFor(() => eventsAt(session.hooks).some((e) => e.event === 'payment.captured'), 'payment.captured at the webhook_url');
  });

  it('revisiting a used link gives 410 with a clear page', async () => {
    const session = await createSession({ methods: ['card'] });
    await page.goto(session.url);
    await fillCard('4242424242424242');
    await page.click('button[type=submit]');
    await page.waitForURL(returned(session.id));
    const again = await page.goto(session.url);
    expect(again!.status()).toBe(410);
    expect(await page.textContent('h1')).toBe('This payment link has already been used');
  });

  it('the whole card flow with the keyboard only, with a visible focus ring', async () => {
    const session = await createSession({ methods: ['card', 'sepa'] });
    await page.goto(session.url);
    const focused = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent?.trim() || '');
    const order: string[] = [];
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('Tab');
      order.push(await focused());
    }
    expect(order).toEqual(['Card', 'SEPA Debit', 'card-number']);
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).toBe('solid');

    await page.keyboard.type('4000000000003220');
    await page.keyboard.press('Tab');
    await page.keyboard.type('12/34');
    await page.keyboard.press('Tab');
    await page.keyboard.type('123');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Jane Doe');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/authenticate\//);
    // The one-time code field has focus on arrival (autofocus applies once the page has loaded,
    // which can be a moment after the URL changes: poll with a deadline).
    await expect.poll(focused, { timeout: 5000 }).toBe('otp');
    await page.keyboard.type('123456');
    await page.keyboard.press('Enter');
    await page.waitForURL(returned(session.id));
    expect(new URL(page.url()).searchParams.get('status')).toBe('complete');
  });

  it('fits a phone screen and a desktop one (screenshots in test-artifacts/)', async () => {
    const session = await createSession({ reference: 'order-2041' });
    for (const [name, viewport] of [
      ['phone', { width: 390, height: 844 }],
      ['desktop', { width: 1280, height: 800 }],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.goto(session.url);
      await page.waitForFunction(() => [...document.images].every((img) => img.complete && img.naturalWidth > 0));
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${name}: no horizontal scrolling`).toBeLessThanOrEqual(viewport.width);
      await page.screenshot({ path: `${ARTIFACTS}/checkout-${name}.png`, fullPage: true });
    }
  });
});
