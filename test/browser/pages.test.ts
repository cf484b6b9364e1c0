// How the pages render in Chromium: every page kind in standards mode (a doctype), a merchant logo
// that fails to load replaced by the merchant's initial, icons drawn without an emoji font, result
// labels aligned with their values, customer copy without repository paths, times in the reader's
// own zone (UTC without JavaScript), the dashboard usable on a 375px phone (tables scroll inside
// their box, ids never broken), and /favicon.ico.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { RunningServer } from '../../src/server/start-server.js';
import { launchChromium, localContext } from '../helpers/browser.js';
import { CREDS, startTestServer } from '../helpers/test-sandbox.js';
import { customerPages, dashboardPages, type PageKind } from './page-kinds.js';

let server: RunningServer;
let guarded: RunningServer;
let browser: Browser;
let customer: PageKind[];
let dashboard: PageKind[];

beforeAll(async () => {
  server = await startTestServer({ retry: 'none' });
  guarded = await startTestServer({ retry: 'none', controlToken: 'ctl_pages_token' });
  browser = await launchChromium();
  customer = await customerPages(server.url);
  dashboard = await dashboardPages(server.url);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await guarded?.close();
});

const pathOf = (kind: string) => customer.find((p) => p.name === kind)!.path;

describe('every page', () => {
  it('renders in standards mode (CSS1Compat), not quirks mode', async () => {
    const { context, blocked } = await localContext(browser);
    const page = await context.newPage();
    const visited = [
      ...customer.map((p) => server.url + p.path),
      ...dashboard.map((p) => server.url + p.path),
      `${guarded.url}/_sandbox/login`,
    ];
    const modes: Record<string, string> = {};
    for (const url of visited) {
      await page.goto(url);
      modes[url] = await page.evaluate(() => document.compatMode);
    }
    expect(Object.entries(modes).filter(([, mode]) => mode !== 'CSS1Compat')).toEqual([]);
    expect(blocked).toEqual([]);
    await context.close();
  }, 120_000);

  it('customer pages show no repository paths, and draw their icons without an emoji font', async () => {
    const { context } = await localContext(browser);
    const page = await context.newPage();
    for (const kind of customer) {
      await page.goto(server.url + kind.path);
      // textContent: the collapsed test-data panel counts too.
      const text = await page.evaluate(() => document.body.textContent ?? '');
      expect(text, kind.name).not.toMatch(/\b(docs|fixtures|src|test)\/[\w./-]+/);
      const icon = page.locator('.result .icon');
      if ((await icon.count()) > 0) {
        expect(await icon.locator('svg').count(), kind.name).toBe(1);
        expect((await icon.innerText()).trim(), kind.name).toBe('');
      }
    }
    await page.goto(server.url + pathOf('expired link'));
    expect(await page.locator('.result .icon svg').isVisible()).toBe(true);
    await context.close();
  });
});

describe('customer pages', () => {
  it('the 3-D Secure page says the card issuer sent the code, not the card brand', async () => {
    const { context } = await localContext(browser);
    const page = await context.newPage();
    await page.goto(server.url + pathOf('3-D Secure OTP'));
    const lead = await page.locator('.card > p.hint').first().innerText();
    expect(lead).toContain('Your bank (the card issuer) sent a one-time code');
    expect(lead).not.toMatch(/VISA|Mastercard/i);
    await context.close();
  });

  it('result-page labels line up with the left edge of their list, beside their values', async () => {
    const { context } = await localContext(browser);
    const page = await context.newPage();
    await page.goto(server.url + pathOf('authentication result'));
    const boxes = await page.evaluate(() => {
      const dl = document.querySelector('dl.summary')!.getBoundingClientRect();
      return [...document.querySelectorAll('dl.summary dt')].map((dt) => {
        const range = document.createRange();
        range.selectNodeContents(dt);
        const text = range.getBoundingClientRect();
        const dd = (dt.nextElementSibling as HTMLElement).getBoundingClientRect();
        return { textLeft: text.left - dl.left, top: dt.getBoundingClientRect().top, ddTop: dd.top };
      });
    });
    expect(boxes.length).toBeGreaterThan(1);
    for (const box of boxes) {
      expect(box.textLeft).toBeLessThan(1);
      expect(Math.abs(box.top - box.ddTop)).toBeLessThan(1);
    }
    await context.close();
  });

  it("a logo that fails to load shows the merchant's initial, never a broken-image icon", async () => {
    const res = await fetch(`${server.url}/v1/checkout/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${CREDS.apiKey}` },
      // A logo URL on 127.0.0.1 that answers 404.
      body: JSON.stringify({
        amount: 1200,
        currency: 'EUR',
        methods: ['card'],
        return_url: 'http://127.0.0.1:9/r',
        branding: { logo_url: `${server.url}/no-such-logo.png` },
      }),
    });
    const session = (await res.json()) as { url: string };
    const { context } = await localContext(browser);
    const page = await context.newPage();
    await page.goto(session.url);
    const logo = page.locator('.brand img.logo');
    await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 0)).toBe(true);
    expect(await logo.getAttribute('alt')).toBe('');
    // The stylesheet draws the initial over the broken image (Chromium renders ::after only on a broken one).
    const after = await logo.evaluate((img) => {
      const style = getComputedStyle(img, '::after');
      return { content: style.content, background: style.backgroundColor, width: img.getBoundingClientRect().width };
    });
    expect(after.content).toBe('"S"');
    expect(after.background).toBe('rgb(59, 91, 219)');
    expect(after.width).toBeGreaterThanOrEqual(40);
    await context.close();
  });

  it('times are shown in the reader’s own zone, and in UTC without JavaScript', async () => {
    for (const [timezoneId, zone] of [
      ['Asia/Kolkata', /GMT\+5:30/],
      ['America/New_York', /E[SD]T/],
    ] as const) {
      const { context } = await localContext(browser, { timezoneId, locale: 'en-US' });
      const page = await context.newPage();
      for (const kind of ['UPI collect', 'checkout card']) {
        await page.goto(server.url + pathOf(kind));
        const time = page.locator('time[data-local-time]');
        await expect.poll(() => time.innerText(), { message: `${kind} in ${timezoneId}` }).toMatch(zone);
        // The same instant as the datetime attribute, in that zone.
        const shown = await time.evaluate((el, tz) => {
          const at = new Date(el.getAttribute('datetime')!);
          return {
            text: el.textContent,
            hour: new Intl.DateTimeFormat('en-US', { hour: '2-digit', hour12: true, timeZone: tz }).format(at),
          };
        }, timezoneId);
        expect(shown.text).toContain(shown.hour.slice(0, 2));
      }
      await context.close();
    }
    const { context } = await localContext(browser, { javaScriptEnabled: false, timezoneId: 'Asia/Kolkata' });
    const page = await context.newPage();
    await page.goto(server.url + pathOf('UPI collect'));
    expect(await page.locator('time[data-local-time]').innerText()).toMatch(/^\d{2}:\d{2}:\d{2} UTC$/);
    await context.close();
  });
});

describe('framing', () => {
  it("a merchant's page on another origin can show the 3-D Secure page in an iframe, but not the checkout page", async () => {
    const shop = http.createServer((req, res) => {
      const src = new URL(req.url!, 'http://x').searchParams.get('src')!;
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!DOCTYPE html><title>Shop</title><iframe name="challenge" src="${src}" width="390" height="400"></iframe>`);
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    const shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}/`;
    const { context } = await localContext(browser);
    const page = await context.newPage();
    const framed = async (path: string) => {
      await page.goto(`${shopUrl}?src=${encodeURIComponent(server.url + path)}`);
      // A refused frame is replaced by Chromium's error page, which is not the sandbox's document.
      const frame = page.frames().find((f) => f !== page.mainFrame() && f.url().startsWith(server.url));
      return frame ? await frame.locator('h1').first().innerText() : 'refused';
    };
    expect(await framed(pathOf('3-D Secure OTP'))).toBe('Verify it is you');
    expect(await framed(pathOf('checkout card'))).toBe('refused');
    await context.close();
    await new Promise<void>((resolve) => shop.close(() => resolve()));
  });
});

describe('the dashboard on a 375px phone', () => {
  it('never scrolls the page sideways: wide tables scroll inside their box, and ids stay on one line', async () => {
    const { context } = await localContext(browser, { viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    for (const kind of dashboard) {
      await page.goto(server.url + kind.path);
      const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: window.innerWidth }));
      expect(widths.page, `${kind.name}: the page is wider than the screen`).toBeLessThanOrEqual(widths.view);
      // An id cell is one line high however long the id (a broken id would wrap to two or more).
      // A delivery's target URL (td.url) is not an id: on a phone it wraps so that the Status column stays in view.
      const broken = await page.evaluate(() =>
        [...document.querySelectorAll('td.id:not(.url)')]
          .filter((td) => {
            const line = parseFloat(getComputedStyle(td).lineHeight) || 16;
            const range = document.createRange();
            range.selectNodeContents(td);
            return range.getClientRects().length > 0 && range.getBoundingClientRect().height > line * 1.5;
          })
          .map((td) => td.textContent),
      );
      expect(broken, `${kind.name}: ids broken across lines`).toEqual([]);
    }
    await page.goto(`${server.url}/_sandbox/?tab=transactions`);
    const box = await page.evaluate(() => {
      const scroller = document.querySelector('.table-scroll') as HTMLElement;
      return { scrolls: scroller.scrollWidth > scroller.clientWidth, overflow: getComputedStyle(scroller).overflowX };
    });
    expect(box).toEqual({ scrolls: true, overflow: 'auto' });
    await context.close();
  });

  it('the sign-in field is styled like the other fields (full width, padded, rounded)', async () => {
    const { context } = await localContext(browser, { viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    await page.goto(`${guarded.url}/_sandbox/login`);
    const field = await page.locator('#token').evaluate((el) => {
      const style = getComputedStyle(el);
      return {
        width: el.getBoundingClientRect().width,
        form: el.closest('form')!.getBoundingClientRect().width,
        radius: style.borderTopLeftRadius,
        fontSize: style.fontSize,
      };
    });
    expect(field.width).toBeCloseTo(field.form, 0);
    expect(field.radius).toBe('8px');
    expect(field.fontSize).toBe('16px');
    await context.close();
  });
});

describe('/favicon.ico', () => {
  it('answers an icon that browsers may cache', async () => {
    const res = await fetch(`${server.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(await res.text()).toMatch(/^<svg /);
  });
});
