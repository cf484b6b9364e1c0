// The dashboard in real Chromium (Debian's, via playwright-core and test/helpers/browser.ts) against a real
// sandbox on port 0 and a fake merchant receiving the webhooks: a new payment appears without a
// reload (live updates over the SSE stream), Replay produces a new attempt, and Approve moves a
// pending authentication to Test Approved. Requests to anything but 127.0.0.1 are blocked and
// counted, and any console error (a CSP violation among them) fails the test.
import { mkdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, localContext } from '../helpers/browser.js';
import type { RunningServer } from '../../src/server/start-server.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { waitFor } from '../helpers/wait-for.js';
import { CREDS, s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { api } from '../helpers/http.js';

const ARTIFACTS = 'test-artifacts';

let server: RunningServer;
let merchant: FakeMerchant;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let blocked: string[];
let consoleErrors: string[];

beforeAll(async () => {
  server = await startTestServer({ retry: 'none' });
  merchant = await startFakeMerchant();
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await merchant?.close();
  await server?.close();
});

beforeEach(async () => {
  ({ context, blocked } = await localContext(browser, { viewport: { width: 1400, height: 900 } }));
  consoleErrors = [];
  page = await context.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => consoleErrors.push(err.message));
});

afterEach(async () => {
  await context.close();
  expect(blocked, 'requests that left 127.0.0.1').toEqual([]);
  expect(consoleErrors, 'console errors in the page').toEqual([]);
});

/** The test's sandbox. */
const sandbox = () => api(server.url);

/** Opens a dashboard page and waits until its live script is subscribed to the stream. */
async function openLive(path: string) {
  await page.goto(server.url + path);
  await waitFor(async () => (await page.getAttribute('#live-state', 'data-state')) === 'live', 'the dashboard to subscribe to the stream');
  // A marker that a reload would wipe: the row must arrive while it stays.
  await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same document'));
}

const stillSameDocument = () => page.evaluate(() => (window as unknown as { marker?: string }).marker);

describe('dashboard in Chromium', () => {
  it('shows a new /v1/ payment without a reload', async () => {
    await openLive('/_sandbox/?tab=payments');
    await expect(page.locator('td.empty').textContent()).resolves.toContain('Nothing here yet');
    const created = await sandbox().post(
      '/v1/payments',
      {
        amount: 2599,
        currency: 'EUR',
        method: 'card',
        routing: 'smart',
        customer: { country: 'NL' },
        return_url: `${merchant.url}/return`,
        webhook_url: `${merchant.url}/hooks/live`,
        reference: 'order-live-1',
      },
      { authorization: `Bearer ${CREDS.apiKey}` },
    );
    expect(created.status).toBe(200);
    const row = page.locator(`tr[data-id="${created.json.id}"]`);
    await waitFor(async () => (await row.count()) === 1, `the row of ${created.json.id} to appear`);
    await expect(row.textContent()).resolves.toContain('25.99 EUR');
    await expect(row.textContent()).resolves.toContain('order-live-1');
    // Created authorized and captured automatically (capture defaults to true): the row follows.
    await waitFor(async () => (await row.locator('.status').textContent()) === 'captured', 'the row to read captured');
    expect(await stillSameDocument()).toBe('same document');
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-payments.png` });
  });

  it('Replay sends the event again: back on the delivery, the replay appears with its answer; its page shows the attempt', async () => {
    const t = await sandbox().post(
      '/api/s2s',
      s2sBody({ ccno: '4242424242424242', reference: 'order-replay', webhook_url: `${merchant.url}/hooks/replay` }),
    );
    expect(t.status).toBe(200);
    // With Chromium and the other projects sharing 2 cores, this webhook once took over 15 s in CI; the deadline only bounds a failure.
    await waitFor(() => merchant.at('/hooks/replay').length === 1, 'the first webhook', 60_000);
    await page.goto(`${server.url}/_sandbox/?tab=deliveries`);
    await page.click(`tr:has-text("${merchant.url}/hooks/replay") a[href^="/_sandbox/dashboard/deliveries/"]`);
    await page.waitForURL(/\/_sandbox\/dashboard\/deliveries\/whd_/);
    const original = page.url();
    await expect(page.locator('article.attempt').count()).resolves.toBe(1);
    await expect(page.locator('article.attempt h3').textContent()).resolves.toContain('HTTP 200');

    await page.click('button:has-text("Replay")');
    await page.waitForURL((url) => url.hash === '#replays');
    expect(page.url().replace(/#.*/, '')).toBe(original);
    // The replay reaching the merchant first, then the page showing it: a failure says which was late
    // (a CI run once waited 60 s for both together), with the sandbox's record of the replay.
    const replays = async () => JSON.stringify((await sandbox().get('/_sandbox/deliveries?limit=3')).json);
    // As long as the first webhook may take (above): the replay is one more delivery on the same cores.
    await waitFor(() => merchant.at('/hooks/replay').length === 2, 'the replay to reach the merchant', 60_000).catch(async (err: Error) => {
      throw new Error(`${err.message}; the newest deliveries: ${await replays()}`);
    });
    // The replay is tried after the page loads or before; live updates show its answer either way.
    const replayRow = page.locator('table.siblings tbody tr');
    await waitFor(
      async () => (await replayRow.count()) === 1 && (await replayRow.textContent())!.includes('HTTP 200'),
      'the replay and its answer on the page',
      30_000,
      50,
    ).catch(async (err: Error) => {
      throw new Error(
        `${err.message}; the page's table: ${await page.locator('table.siblings').innerHTML()}; the newest deliveries: ${await replays()}`,
      );
    });
    await expect(replayRow.textContent()).resolves.toContain('(replay)');
    await expect(replayRow.locator('.status').textContent()).resolves.toBe('succeeded');
    const received = merchant.at('/hooks/replay');
    expect(received).toHaveLength(2);
    expect(received[1]!.headers['x-sandbox-event-id']).toBe(received[0]!.headers['x-sandbox-event-id']);
    expect(received[1]!.body).toBe(received[0]!.body);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-delivery.png`, fullPage: true });

    // The replay's own page: its attempt, with the request as sent and the merchant's answer.
    await replayRow.locator('a').click();
    await expect(page.textContent('h2')).resolves.toContain('(replay)');
    await expect(page.locator('article.attempt').count()).resolves.toBe(1);
    await expect(page.locator('article.attempt h3').textContent()).resolves.toContain('HTTP 200');
    await expect(page.locator('article.attempt pre.response').textContent()).resolves.toBe('ok');
  });

  it('a delivery the handler refused with 401 shows the signature diagnosis of what was sent, live', async () => {
    const refuser = await startFakeMerchant({ fallback: 401 });
    try {
      await sandbox().post(
        '/api/s2s',
        s2sBody({ ccno: '4242424242424242', reference: 'order-refused', webhook_url: `${refuser.url}/hooks` }),
      );
      await waitFor(() => refuser.received.length === 1, 'the refused webhook');
      await page.goto(`${server.url}/_sandbox/?tab=deliveries`);
      await page.click(`tr:has-text("${refuser.url}/hooks") a[href^="/_sandbox/dashboard/deliveries/"]`);
      await page.waitForURL(/\/_sandbox\/dashboard\/deliveries\/whd_/);
      const refusal = page.locator('article.attempt .refusal');
      await waitFor(async () => (await refusal.count()) === 1, 'the diagnosis of the refused attempt');
      await expect(refusal.getAttribute('data-cause')).resolves.toBe('valid');
      await expect(refusal.locator('p').textContent()).resolves.toMatch(
        /^Signature check of what was sent \(the handler answered 401\): valid, signature valid: .*merchant mer_sandbox's webhook secret/,
      );
    } finally {
      await refuser.close();
    }
  });

  it('Approve on a pending authentication moves the transaction to Test Approved', async () => {
    const t = await sandbox().post(
      '/api/s2s',
      s2sBody({ ccno: '4000000000003220', reference: 'order-approve', webhook_url: `${merchant.url}/hooks/approve` }),
    );
    expect(t.json.status).toBe('Pending');
    await page.goto(`${server.url}/_sandbox/?tab=transactions&q=order-approve`);
    const row = page.locator(`tr[data-id="${t.json.transID}"]`);
    await expect(row.locator('.status').textContent()).resolves.toBe('Pending');
    await row.locator('button[value=approve]').click();
    await page.waitForURL((url) => url.pathname === '/_sandbox/' && url.searchParams.get('q') === 'order-approve');
    await waitFor(async () => (await row.locator('.status').textContent()) === 'Test Approved', 'the row to read Test Approved');
    await expect(row.locator('button[value=approve]').count()).resolves.toBe(0);
    await waitFor(() => merchant.at('/hooks/approve').length === 1, 'the webhook of the approval');
    expect(new URLSearchParams(merchant.at('/hooks/approve')[0]!.body).get('order_status')).toBe('25');
  });

  it('works without JavaScript: the lists and forms are plain HTML', async () => {
    const noJs = await browser.newContext({ javaScriptEnabled: false });
    try {
      const plain = await noJs.newPage();
      const t = await sandbox().post('/api/s2s', s2sBody({ ccno: '4000000000003220', reference: 'order-nojs' }));
      await plain.goto(`${server.url}/_sandbox/?tab=transactions&q=order-nojs`);
      await plain.locator(`tr[data-id="${t.json.transID}"] button[value=decline]`).click();
      await plain.waitForURL((url) => url.searchParams.get('q') === 'order-nojs');
      await expect(plain.locator(`tr[data-id="${t.json.transID}"] .status`).textContent()).resolves.toBe('Test Declined');
      await expect(plain.textContent('#live-state')).resolves.toBe('Live updates need JavaScript');
    } finally {
      await noJs.close();
    }
  });
});

describe('what needs attention, in Chromium', () => {
  // A sandbox of its own that retries (dev profile, driven by clock advances) and a handler that
  // refuses every webhook with 401, as one whose signature check is broken does.
  let own: RunningServer;
  let refuser: FakeMerchant;
  let deliveryId: string;

  beforeAll(async () => {
    own = await startTestServer({ retry: 'dev' });
    refuser = await startFakeMerchant({ fallback: 401 });
    const paid = await api(own.url).post(
      '/api/s2s',
      s2sBody({ ccno: '4242424242424242', reference: 'order-failing', webhook_url: `${refuser.url}/hooks` }),
    );
    expect(paid.status).toBe(200);
    await waitFor(() => refuser.received.length >= 1, 'the first attempt');
    // Two more attempts: the retries after 1 s and 2 s fall due when sandbox time moves on.
    await api(own.url).post('/_sandbox/clock/advance', { duration: '4s' });
    await waitFor(() => refuser.received.length >= 3, 'three attempts');
    deliveryId = String(refuser.received[0]!.headers['x-sandbox-delivery-id']);
    await waitFor(
      async () => (await api(own.url).get(`/_sandbox/deliveries/${deliveryId}`)).json.attempt_log.length >= 3 || undefined,
      'the three attempts recorded',
    );
  });
  afterAll(async () => {
    await refuser?.close();
    await own?.close();
  });

  it('the dashboard opens on the failing deliveries, not on S2S transactions', async () => {
    await page.goto(`${own.url}/_sandbox/`);
    await expect(page.locator('nav.tabs a[aria-current=page]').textContent()).resolves.toBe('Webhook deliveries');
    await expect(page.locator('select[name=status] option[selected]').getAttribute('value')).resolves.toBe('failing');
    await expect(page.locator(`tr[data-id="${deliveryId}"] .status`).textContent()).resolves.toBe('pending');
    await expect(page.locator('#landing').textContent()).resolves.toContain('failing');
    // Every delivery is one link away.
    await expect(page.locator('#landing a').getAttribute('href')).resolves.toBe('/_sandbox/?tab=deliveries');
  });

  it("a delivery's page gives each refused attempt its own diagnosis, the repeated one folded", async () => {
    await page.goto(`${own.url}/_sandbox/dashboard/deliveries/${deliveryId}`);
    // Every refused attempt has its diagnosis, read in one look at the page: it is live, and a later
    // retry can be added between two reads (a CI run saw 4 diagnoses, then 5 refusals).
    const { texts, refusals } = await page.evaluate(() => ({
      texts: [...document.querySelectorAll('article.attempt .refusal .diagnosis')].map((el) => el.textContent ?? ''),
      refusals: document.querySelectorAll('article.attempt .refusal').length,
    }));
    expect(texts.length).toBe(refusals);
    expect(texts.length).toBeGreaterThanOrEqual(3);
    for (const [i, text] of texts.entries()) expect(text).toContain(`attempt ${i + 1} of delivery ${deliveryId}`);
    // The paragraph is shown once; the attempts that repeat it say so in a line and keep their own folded.
    await expect(page.locator('article.attempt .refusal .diagnosis >> visible=true').count()).resolves.toBe(1);
    await expect(page.locator('article.attempt[data-attempt="2"] .refusal > p').textContent()).resolves.toBe(
      'Signature check of what was sent (the handler answered 401): valid, as for attempt 1.',
    );
    await page.locator('article.attempt[data-attempt="3"] .refusal summary').click();
    await expect(page.locator('article.attempt[data-attempt="3"] .refusal .diagnosis').isVisible()).resolves.toBe(true);
  });

  it('at 375 px wide the deliveries table shows its Status column without scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(`${own.url}/_sandbox/?tab=deliveries`);
    // The live script swaps the list in as retries happen: measure a settled element, polling.
    const inView = (selector: string) =>
      waitFor(async () => {
        const box = await page.locator(selector).first().boundingBox();
        return box !== null && box.x >= 0 && box.x + box.width <= 375;
      }, `${selector} within the 375 px viewport`);
    await inView('table[data-tab=deliveries] th:has-text("Status")');
    await inView(`tr[data-id="${deliveryId}"] .status`);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-deliveries-375.png`, fullPage: true });
  });
});
