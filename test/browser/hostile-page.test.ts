// A hostile web page in real Chromium (Debian's, via playwright-core and test/helpers/browser.ts) against a
// real sandbox: a page served from another port of 127.0.0.1 auto-submits an HTML form to
// POST /_sandbox/reset, and fires a no-cors fetch() at it with a text/plain body or with no body at
// all, each what any site open in the developer's browser can do. The sandbox refuses both (cross_site_refused), also
// when it runs with --control-token and the browser holds the sign-in cookie (SameSite ignores
// ports, so Chromium sends it along), and the payment made before is still there.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, localContext } from '../helpers/browser.js';
import type { RunningServer } from '../../src/server/start-server.js';
import { s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { api } from '../helpers/http.js';

const TOKEN = 'ctl_hostile_test_token';

let browser: Browser;
let context: BrowserContext;
let page: Page;
let blocked: string[];

/** A web server on another port of 127.0.0.1 whose pages attack `target` (the sandbox's base URL). */
async function startHostileSite(target: string) {
  const reset = `${target}/_sandbox/reset`;
  const pages: Record<string, string> = {
    // enctype text/plain with this name/value pair sends the body {"x":"="}: JSON in all but Content-Type.
    '/form': `<!DOCTYPE html><form method="POST" action="${reset}" enctype="text/plain"><input name='{"x":"' value='"}'></form><script>document.forms[0].submit()</script>`,
    '/fetch': `<!DOCTYPE html><script>fetch(${JSON.stringify(reset)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{}' })</script>`,
    // No body and no Content-Type: the one write the guard takes without JSON, so only Origin stops it.
    '/fetch-bodiless': `<!DOCTYPE html><script>fetch(${JSON.stringify(reset)}, { method: 'POST', mode: 'no-cors', credentials: 'include' })</script>`,
  };
  const server = http.createServer((req, res) => {
    const html = pages[req.url ?? ''];
    res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(html ?? 'no such page');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An approved S2S payment on `sandbox`; returns its transID. */
async function pay(sandbox: RunningServer): Promise<string> {
  const res = await api(sandbox.url).post('/api/s2s', s2sBody({ ccno: '4242424242424242' }));
  expect(res.status).toBe(200);
  return res.json.transID;
}

/** The status of GET /_sandbox/transactions/{transID}, as the CLI would ask. */
async function transactionStatus(sandbox: RunningServer, transID: string): Promise<number> {
  return (await api(sandbox.url, { authorization: `Bearer ${TOKEN}` }).get(`/_sandbox/transactions/${transID}`)).status;
}

/** Opens the hostile page and resolves with the sandbox's answer to its POST /_sandbox/reset (and the request's headers). */
async function attack(hostile: string, sandbox: RunningServer) {
  const answered = page.waitForResponse((res) => res.url() === `${sandbox.url}/_sandbox/reset`);
  await page.goto(hostile);
  const response = await answered;
  return { status: response.status(), headers: await response.request().allHeaders() };
}

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

beforeEach(async () => {
  ({ context, blocked } = await localContext(browser));
  page = await context.newPage();
});

afterEach(async () => {
  await context.close();
  expect(blocked, 'requests that left 127.0.0.1').toEqual([]);
});

describe.each([
  ['without a control token', {}],
  ['with --control-token and the sign-in cookie in the browser', { controlToken: TOKEN }],
])('a page on another port of 127.0.0.1, %s', (_name, flags) => {
  let sandbox: RunningServer;
  let hostile: Awaited<ReturnType<typeof startHostileSite>>;

  beforeAll(async () => {
    sandbox = await startTestServer({ retry: 'none', ...flags });
    hostile = await startHostileSite(sandbox.url);
  });

  afterAll(async () => {
    await hostile?.close();
    await sandbox?.close();
  });

  beforeEach(async () => {
    if (!('controlToken' in flags)) return;
    // Signed in to the dashboard, as the developer would be: the cookie is now in the browser.
    await page.goto(`${sandbox.url}/_sandbox/login`);
    await page.fill('input[name="token"]', TOKEN);
    await Promise.all([page.waitForURL(`${sandbox.url}/_sandbox/`), page.click('button[type="submit"]')]);
  });

  it.each(['/form', '/fetch', '/fetch-bodiless'])('%s cannot reset the sandbox', async (path) => {
    const transID = await pay(sandbox);
    const { status, headers } = await attack(`${hostile.url}${path}`, sandbox);
    expect(status).toBe(403);
    expect(headers.origin).toBe(hostile.url);
    if (path === '/fetch-bodiless') expect(headers['content-type']).toBeUndefined();
    // With a token the attack carries the cookie: only the guard's same-origin check stops it.
    if ('controlToken' in flags) expect(headers.cookie).toContain(`sandbox_control=${TOKEN}`);
    expect(await transactionStatus(sandbox, transID)).toBe(200);
  });
});
