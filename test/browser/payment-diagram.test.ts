// A payment's sequence diagram in real Chromium against a real sandbox and a fake merchant: the
// lanes drawn, each arrow running from the middle of its lane to the middle of the other, a step
// opening onto what it carried (with and without JavaScript), and the diagram growing without a
// reload as the payment moves on (the customer passes 3-D Secure, the webhook goes out and the
// handler answers). Requests to anything but 127.0.0.1 are blocked, and a console error fails.
import { mkdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { launchChromium, localContext } from '../helpers/browser.js';
import type { RunningServer } from '../../src/server/start-server.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { waitFor } from '../helpers/wait-for.js';
import { s2sBody, startTestServer } from '../helpers/test-sandbox.js';
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
});

afterAll(async () => {
  await browser?.close();
  await merchant?.close();
  await server?.close();
});

beforeEach(async () => {
  ({ context, blocked } = await localContext(browser, { viewport: { width: 1280, height: 900 } }));
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

/** A 3-D Secure S2S payment left Pending, its webhook going to the fake merchant at `hook`. */
async function pendingPayment(hook: string): Promise<string> {
  const res = await api(server.url).post('/api/s2s', s2sBody({ ccno: '4000000000003220', webhook_url: `${merchant.url}${hook}` }));
  expect(res.status, res.text).toBe(200);
  return res.json.transID as string;
}

/** The arrows' texts as a screen reader reads them ("from to to: what"), in order. */
const spoken = (target: Page) => target.locator('ol.steps .arrow').allTextContents();

describe("a payment's sequence diagram in Chromium", () => {
  it('draws each arrow between its lanes, and grows live as the customer passes 3-D Secure and the webhook is answered', async () => {
    const transID = await pendingPayment('/hooks/diagram');
    await page.goto(`${server.url}/_sandbox/dashboard/payments/${transID}`);
    await expect(page.locator('.lanes span').allTextContents()).resolves.toEqual([
      "Customer's browser",
      "Merchant's server",
      'Sandbox',
      'Webhook handler',
    ]);
    const before = await spoken(page);
    expect(before.slice(0, 2)).toEqual(["Merchant's server to Sandbox: POST /api/s2s", "Sandbox to Merchant's server: 200"]);

    // The create's arrow runs from the middle of the merchant's lane to the middle of the sandbox's.
    // Measured in one task of the page: the live script may replace the list between two calls
    // from here (it refreshes it once the stream opens), and a box read across that came out wrong.
    const offsets = await page.evaluate(() => {
      const middle = (lane: string) => {
        const box = document.querySelector(`.lanes [data-lane=${lane}]`)!.getBoundingClientRect();
        return box.left + box.width / 2;
      };
      const arrow = document.querySelector('ol.steps .arrow')!.getBoundingClientRect();
      return { start: arrow.left - middle('merchant'), end: arrow.right - middle('sandbox') };
    });
    expect(Math.abs(offsets.start)).toBeLessThan(3);
    expect(Math.abs(offsets.end)).toBeLessThan(3);

    await waitFor(async () => (await page.getAttribute('#live-state', 'data-state')) === 'live', 'the page to subscribe to the stream');
    await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same document'));

    const approved = await api(server.url).post(`/_sandbox/transactions/${transID}/authenticate`, { outcome: 'approve' });
    expect(approved.status, approved.text).toBe(200);
    // With Chromium and other projects sharing 2 cores, a webhook can take many seconds; the deadline only bounds a failure.
    await waitFor(
      async () => (await spoken(page)).includes('Webhook handler to Sandbox: HTTP 200') || undefined,
      'the attempt and the handler’s answer in the diagram',
      60_000,
    );
    const after = await spoken(page);
    expect(after.slice(0, before.length)).toEqual(before);
    const changed = after.findIndex((line) => /^Sandbox: payment\.authorized → \d+ Test Approved$/.test(line));
    const sent = after.indexOf('Sandbox to Webhook handler: payment.authorized attempt 1');
    expect(changed, after.join('\n')).toBeGreaterThanOrEqual(before.length);
    expect(sent).toBeGreaterThan(changed);
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same document');
    expect(merchant.at('/hooks/diagram')).toHaveLength(1);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/payment-diagram.png`, fullPage: true });

    // The attempt opens onto its delivery, and the link lands on the attempt.
    const attempt = page.locator('li.step[data-kind=attempt]');
    await attempt.locator('summary').click();
    await attempt.locator('a[href*="/_sandbox/dashboard/deliveries/"]').click();
    await page.waitForURL(/\/_sandbox\/dashboard\/deliveries\/whd_\w+#attempt-1$/);
    await expect(page.locator('#attempt-1 h3').textContent()).resolves.toContain('HTTP 200');
  });

  it('every step opened, on a 375 px phone: axe finds no WCAG 2.1 A/AA violation, and the page does not scroll sideways', async () => {
    const transID = await pendingPayment('/hooks/opened');
    const approved = await api(server.url).post(`/_sandbox/transactions/${transID}/authenticate`, { outcome: 'approve' });
    expect(approved.status, approved.text).toBe(200);
    await waitFor(() => merchant.at('/hooks/opened').length === 1, 'the webhook', 60_000);
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto(`${server.url}/_sandbox/dashboard/payments/${transID}`);
    const steps = page.locator('li.step details');
    await waitFor(async () => (await page.locator('li.step[data-kind=attempt]').count()) > 0 || undefined, 'the attempt on the page');
    // A live redraw may come in between (the webhook's answer): open them again until every one stays open.
    await waitFor(async () => {
      await page.locator('li.step details:not([open])').evaluateAll((closed) =>
        closed.forEach((d) => {
          (d as HTMLDetailsElement).open = true;
        }),
      );
      return (await page.locator('.step-detail:visible').count()) === (await steps.count()) || undefined;
    }, 'every step open');
    const found = (await axeViolations(page)).flatMap((v) => v.nodes.map((n) => `${v.id}: ${v.help} at ${n.target.join(' ')}`));
    expect(found).toEqual([]);
    const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: window.innerWidth }));
    expect(widths.page).toBeLessThanOrEqual(widths.view);
  });

  it('works without JavaScript: the diagram is in the page, and a step opens onto the request it was', async () => {
    const transID = await pendingPayment('/hooks/nojs');
    const noJs = await browser.newContext({ javaScriptEnabled: false });
    try {
      const plain = await noJs.newPage();
      await plain.goto(`${server.url}/_sandbox/dashboard/payments/${transID}`);
      await expect(plain.textContent('#live-state')).resolves.toBe('Live updates need JavaScript');
      const create = plain.locator('li.step').first();
      await expect(create.locator('.request-body').isVisible()).resolves.toBe(false);
      await create.locator('summary').click();
      await expect(create.locator('.request-body').isVisible()).resolves.toBe(true);
      await expect(create.locator('.request-body').textContent()).resolves.toContain('"ccno":"400000******3220"');
      await plain.setViewportSize({ width: 375, height: 740 });
      await plain.screenshot({ path: `${ARTIFACTS}/payment-diagram-375.png`, fullPage: true });
    } finally {
      await noJs.close();
    }
  });
});
