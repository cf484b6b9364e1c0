// The shop's own test suite, as a merchant would write it: a paysandbox per file (startSandbox()),
// the shop pointed at it, a customer paying on the hosted checkout page (plain fetch form posts,
// as a browser would send them), and the webhooks checked on the shop's side: the order is paid
// only once the signed event arrives, and a duplicate delivery changes nothing.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSandbox, type SandboxHandle } from 'paysandbox';
import type { Order } from './src/orders.js';
import { startShop, type Shop } from './src/server.js';

let sandbox: SandboxHandle;
let shop: Shop;

beforeAll(async () => {
  sandbox = await startSandbox();
  shop = await startShop({ gatewayUrl: sandbox.url, apiKey: sandbox.credentials.apiKey, webhookSecret: sandbox.credentials.webhookSecret });
});

afterAll(async () => {
  await shop?.close();
  await sandbox?.close();
});

beforeEach(async () => {
  await sandbox.reset();
});

/** A customer places an order at the shop and is sent to the hosted checkout page. */
async function placeOrder(amount = 2450) {
  const res = await fetch(`${shop.url}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount, currency: 'EUR' }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { order_id: string; checkout_url: string };
}

/** Posts a form of an HTML page the way a browser does, with the page's hidden csrf field; returns the redirect. */
async function submitForm(pageUrl: string, action: string, fields: Record<string, string>) {
  const page = await (await fetch(pageUrl)).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  expect(csrf, `no form on ${pageUrl}`).toBeDefined();
  const res = await fetch(new URL(action, pageUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrf!, ...fields }),
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  return new URL(res.headers.get('location')!, pageUrl);
}

/** The customer pays by card on the hosted page; returns where the page sends them next. */
function payByCard(checkoutUrl: string, number: string) {
  return submitForm(checkoutUrl, `${new URL(checkoutUrl).pathname}/card`, { number, expiry: '12 / 34', cvc: '123', name: 'Jane Doe' });
}

const orderOf = async (id: string) => (await (await fetch(`${shop.url}/orders/${id}`)).json()) as Order;

describe('checkout at the shop, against paysandbox', () => {
  it('a card payment: the customer returns, and the webhook (not the return) marks the order paid', async () => {
    const { order_id, checkout_url } = await placeOrder();
    const back = await payByCard(checkout_url, '4242 4242 4242 4242');
    expect(back.origin + back.pathname).toBe(`${shop.url}/checkout/return`);
    expect(back.searchParams.get('status')).toBe('complete');
    expect(await (await fetch(back)).text()).toContain('confirming your payment');

    const delivery = await sandbox.waitForDelivery({ event: 'checkout.session.completed', url: `${shop.url}/webhooks` });
    expect(delivery.attempts.at(-1)!.responseStatus).toBe(200);
    const order = await orderOf(order_id);
    expect(order).toMatchObject({ status: 'paid', paymentId: expect.stringMatching(/^pay_/) });
    // The latest event the shop applied is one the gateway sent it (payment.* events come too).
    expect(sandbox.deliveries().map((d) => d.eventId)).toContain(order.latestEvent?.id);
  });

  it('3-D Secure: the customer enters the code on the bank page, then the order is paid', async () => {
    const { order_id, checkout_url } = await placeOrder(1999);
    const challenge = await payByCard(checkout_url, '4000 0000 0000 3220');
    expect(challenge.pathname).toMatch(/^\/authenticate\//);
    expect((await orderOf(order_id)).status).toBe('awaiting_payment');
    // The OTP page's own form (123456 passes), then the gateway sends the customer back to the shop.
    const next = await submitForm(challenge.toString(), challenge.pathname, { otp: '123456', action: 'submit' });
    const res = await fetch(next, { redirect: 'manual' });
    expect(res.headers.get('location')).toMatch(new RegExp(`^${shop.url}/checkout/return\\?`));
    await sandbox.waitForDelivery({ event: 'checkout.session.completed', url: `${shop.url}/webhooks` });
    expect((await orderOf(order_id)).status).toBe('paid');
  });

  it('a declined card leaves the order waiting; the retry with another card pays it', async () => {
    const { order_id, checkout_url } = await placeOrder();
    const back = await payByCard(checkout_url, '4000 0000 0000 0002');
    expect(back.pathname).toBe(new URL(checkout_url).pathname);
    await sandbox.waitForDelivery({ event: 'payment.declined', url: `${shop.url}/webhooks` });
    expect(await orderOf(order_id)).toMatchObject({
      status: 'awaiting_payment',
      declinedAttempts: 1,
      latestEvent: { type: 'payment.declined' },
    });

    await payByCard(checkout_url, '4242 4242 4242 4242');
    await sandbox.waitForDelivery({ event: 'checkout.session.completed', url: `${shop.url}/webhooks` });
    expect(await orderOf(order_id)).toMatchObject({ status: 'paid', declinedAttempts: 1 });
  });

  it('a replayed event (same id) is acknowledged and not applied twice', async () => {
    const { order_id, checkout_url } = await placeOrder();
    await payByCard(checkout_url, '4242 4242 4242 4242');
    const first = await sandbox.waitForDelivery({ event: 'checkout.session.completed', url: `${shop.url}/webhooks` });
    const before = await orderOf(order_id);
    const duplicatesBefore = shop.webhooks.duplicates;

    // The gateway may send any event again; the control API's replay does exactly that.
    const replay = await fetch(`${sandbox.url}/_sandbox/deliveries/${first.id}/replay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(replay.status).toBe(201);
    const replayed = await sandbox.waitForDelivery({ event: 'checkout.session.completed', match: (d) => d.id !== first.id });
    expect(replayed.eventId).toBe(first.eventId);
    expect(replayed.attempts[0]!.responseBody).toContain('duplicate');
    expect(shop.webhooks.duplicates).toBe(duplicatesBefore + 1);
    expect(await orderOf(order_id)).toEqual(before);
  });

  it('refuses a webhook with a wrong signature (400, so the gateway would retry it) and changes nothing', async () => {
    const { order_id } = await placeOrder();
    const forged = JSON.stringify({
      id: 'evt_forged',
      event: 'checkout.session.completed',
      created_at: new Date().toISOString(),
      data: { reference: order_id, payment_id: 'pay_forged' },
    });
    const res = await fetch(`${shop.url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sandbox-signature': `sha256=${'0'.repeat(64)}` },
      body: forged,
    });
    expect(res.status).toBe(400);
    expect((await orderOf(order_id)).status).toBe('awaiting_payment');
  });
});

describe('duplicate deliveries from the gateway (fault injection)', () => {
  let noisy: SandboxHandle;
  let noisyShop: Shop;

  beforeAll(async () => {
    // Every attempt arrives twice, the way at-least-once delivery can do it in production.
    noisy = await startSandbox({ faults: 'duplicate=1' });
    noisyShop = await startShop({
      gatewayUrl: noisy.url,
      apiKey: noisy.credentials.apiKey,
      webhookSecret: noisy.credentials.webhookSecret,
    });
  });

  afterAll(async () => {
    await noisyShop?.close();
    await noisy?.close();
  });

  it('handles each event once however many copies arrive', async () => {
    const res = await fetch(`${noisyShop.url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 500, currency: 'EUR' }),
    });
    const { order_id, checkout_url } = (await res.json()) as { order_id: string; checkout_url: string };
    await submitForm(checkout_url, `${new URL(checkout_url).pathname}/card`, {
      number: '4242424242424242',
      expiry: '12 / 34',
      cvc: '123',
      name: 'Jane Doe',
    });
    await noisy.waitForDelivery({ event: 'checkout.session.completed', url: `${noisyShop.url}/webhooks` });
    const events = new Set(noisy.deliveries().map((d) => d.eventId)).size;
    // Each event's copy arrives alongside it; wait until the shop has recognised one per event.
    await vi.waitFor(() => expect(noisyShop.webhooks.duplicates).toBe(events), { timeout: 5000, interval: 20 });
    expect(await (await fetch(`${noisyShop.url}/orders/${order_id}`)).json()).toMatchObject({ status: 'paid', declinedAttempts: 0 });
  });
});
