// The customer pages (the authentication page at authurl, the hosted checkout page) answer every
// error as an HTML page in their layout, with the error's status, what went wrong and what to do:
// a wrong Content-Type, a form too large or not UTF-8, a method the page does not take, a path
// under them that names no page. The same errors on the JSON API keep the JSON error body.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH } from '../helpers/payments-api.js';

let sandbox: TestSandbox;
beforeEach(() => {
  sandbox = createTestSandbox();
});
afterEach(() => sandbox.close());

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** A hosted checkout page's path, /pay/<token>. */
async function checkoutPath(): Promise<string> {
  const res = await sandbox.request(
    'POST',
    '/v1/checkout/sessions',
    { amount: 1050, currency: 'EUR', methods: ['card'], return_url: 'https://shop.example/return' },
    AUTH,
  );
  expect(res.status, res.text).toBe(200);
  return new URL(res.json.url).pathname;
}

/** The path of a 3-D Secure payment's authurl, /authenticate/<token>. */
async function authPath(): Promise<string> {
  const res = await sandbox.request('POST', '/api/s2s', s2sBody({ ccno: '4000000000003220' }));
  expect(res.status, res.text).toBe(200);
  return new URL(res.json.authurl).pathname;
}

/** Checks an answer is an HTML error page in the customer pages' layout, with `title` and `message`. */
function expectErrorPage(res: { status: number; headers: Headers; text: string }, status: number, title: string, message: RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.text).toMatch(/^<!DOCTYPE html>/);
  expect(res.text).toContain('Test mode: paysandbox simulates this page.');
  expect(res.text).toContain(`<h1>${title}</h1>`);
  expect(res.text).toMatch(message);
  expect(res.text).toMatch(/request req_/);
  // The pages' security headers come with their error pages too.
  expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
}

describe.each([
  ['checkout', async () => `${await checkoutPath()}/card`],
  ['authentication', authPath],
])('the %s page', (_name, formPath) => {
  it('answers a form over the body limit with a 413 page', async () => {
    const res = await sandbox.request('POST', await formPath(), `csrf=${'x'.repeat(1024 * 1024 + 1)}`, FORM);
    expectErrorPage(res, 413, 'Form too large', /the body is larger than 1048576 bytes.*far smaller than the limit/s);
  });

  it('answers a method the page does not take with a 405 page and the Allow header', async () => {
    const path = await formPath();
    const res = await sandbox.request('DELETE', path);
    expectErrorPage(res, 405, 'Method not allowed', /does not take DELETE; send .*POST/);
    expect(res.headers.get('allow')).toContain('POST');
  });

  it('answers a path under the page that names nothing with a 404 page, the path escaped', async () => {
    const res = await sandbox.request('GET', `${await formPath()}/<script>alert(1)</script>`);
    expectErrorPage(res, 404, 'Page not found', /no endpoint GET .*Open the link the shop gave you/s);
    expect(res.text).not.toContain('<script>alert(1)');
    expect(res.text).not.toMatch(/<script(?! src="\/assets\/local-time\.js")/i);
  });
});

it('answers a checkout form sent as JSON with a 400 page that says to send it as a form', async () => {
  const res = await sandbox.request('POST', `${await checkoutPath()}/card`, { csrf: 'x' });
  expectErrorPage(
    res,
    400,
    'Form not sent as a form',
    /Content-Type must be application\/x-www-form-urlencoded, got &quot;application\/json&quot;.*Submit the form from the page itself/s,
  );
});

it('answers an authentication form sent as JSON with the page again: no form, so no CSRF token (403, HTML)', async () => {
  // The authentication page reads any body as its form (a malformed one as an empty form).
  const res = await sandbox.request('POST', await authPath(), { csrf: 'x' });
  expect(res.status).toBe(403);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.text).toContain('This form has expired or was not sent from this page.');
});

it('answers a checkout form that is not UTF-8 with a 400 page', async () => {
  const raw = await sandbox.app.request(`${await checkoutPath()}/card`, {
    method: 'POST',
    body: new Uint8Array([0x6e, 0x3d, 0xff, 0xfe]),
    headers: FORM,
  });
  const res = { status: raw.status, headers: raw.headers, text: await raw.text() };
  expectErrorPage(res, 400, 'Form not readable', /the body is not valid UTF-8.*a test that posts it must send UTF-8 text/s);
});

it('answers an invalid card form with the checkout page again (400, HTML) naming the fields to fix', async () => {
  const path = await checkoutPath();
  const csrf = /name="csrf" value="([^"]+)"/.exec((await sandbox.request('GET', path)).text)?.[1] ?? '';
  expect(csrf).not.toBe('');
  const res = await sandbox.request('POST', `${path}/card`, new URLSearchParams({ csrf, number: '1234' }).toString(), FORM);
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.text).toContain('Check the highlighted fields.');
  expect(res.text).toContain('Your card number is not valid.');
});

it('keeps the JSON error body on the API: the same wrong Content-Type on /v1/ answers JSON', async () => {
  const res = await sandbox.request('POST', '/v1/checkout/sessions', 'amount=1', { ...AUTH, ...FORM });
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.json.error.code).toBe('unsupported_content_type');
  const missing = await sandbox.request('GET', '/v1/nothing-here', undefined, AUTH);
  expect(missing.status).toBe(404);
  expect(missing.json.error.code).toBe('route_not_found');
});
