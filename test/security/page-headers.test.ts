// Every HTML page gets the one page-headers policy (src/http/page-headers.ts): a CSP without
// inline script, nosniff, no referrer, no Strict-Transport-Security over plain http, and one
// framing rule: the page at authurl may be framed by any site (a merchant shows 3-D Secure in an
// iframe), every other page (checkout, results, 404s, dashboard, sign-in) by none.
import { afterEach, describe, expect, it } from 'vitest';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { seedObjects } from '../helpers/seed-objects.js';

const BEARER = { authorization: `Bearer ${CREDS.apiKey}` };
const HTML = { accept: 'text/html' };

let sb: TestSandbox;
afterEach(() => sb?.close());

function expectPolicy(res: { status: number; headers: Headers }, where: string, framable: boolean) {
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp, where).toContain("default-src 'self'");
  expect(csp, where).toContain("script-src 'self'");
  expect(csp, where).not.toContain('unsafe-inline');
  expect(res.headers.get('x-content-type-options'), where).toBe('nosniff');
  expect(res.headers.get('referrer-policy'), where).toBe('no-referrer');
  expect(res.headers.get('strict-transport-security'), where).toBeNull();
  if (framable) {
    expect(csp, where).toContain('frame-ancestors *');
    expect(res.headers.get('x-frame-options'), where).toBeNull();
  } else {
    expect(csp, where).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options'), where).toBe('DENY');
  }
}

describe('one page-headers policy on every page', () => {
  it('customer pages: authentication (framable), its result and 404; checkout, its 410 and 404 (not framable)', async () => {
    sb = createTestSandbox();
    const seeded = await seedObjects(sb);
    const nb = await sb.request(
      'POST',
      '/api/s2s',
      s2sBody({ mop: 'NB', ccno: undefined, ccvv: undefined, month: undefined, year: undefined }),
    );
    const pages: Array<[string, boolean, number]> = [
      [`/authenticate/${seeded.challengeToken}`, true, 200],
      [new URL(nb.json.authurl).pathname, true, 200],
      ['/authenticate/no-such-token', true, 404],
      [`/pay/${seeded.sessionToken}`, false, 200],
      ['/pay/no-such-token', false, 404],
    ];
    for (const [path, framable, status] of pages) {
      const res = await sb.request('GET', path);
      expect(res.status, path).toBe(status);
      expectPolicy(res, path, framable);
    }
    // A finished challenge shows its result page; a completed session's link answers 410.
    await sb.request('POST', `/_sandbox/transactions/${seeded.transPending}/authenticate`, { outcome: 'approve' });
    expectPolicy(await sb.request('GET', `/authenticate/${seeded.challengeToken}`), 'result page', true);
    const sepa = await sb.request(
      'POST',
      '/v1/checkout/sessions',
      { amount: 100, currency: 'EUR', methods: ['sepa'], return_url: 'https://shop.example/r' },
      BEARER,
    );
    await sb.request('POST', '/_sandbox/clock/advance', { duration: '25h' });
    const gone = await sb.request('GET', new URL(sepa.json.url).pathname);
    expect(gone.status).toBe(410);
    expectPolicy(gone, 'expired link', false);
  });

  it('the dashboard, a delivery page and the sign-in page', async () => {
    sb = createTestSandbox();
    const seeded = await seedObjects(sb);
    expectPolicy(await sb.request('GET', '/_sandbox/?tab=payments', undefined, HTML), 'dashboard', false);
    expectPolicy(await sb.request('GET', `/_sandbox/dashboard/deliveries/${seeded.delivery}`, undefined, HTML), 'delivery page', false);
    sb.close();
    sb = createTestSandbox({ controlToken: 'ctl_page_headers' });
    const signIn = await sb.request('GET', '/_sandbox/login', undefined, HTML);
    expect(signIn.status).toBe(200);
    expectPolicy(signIn, 'sign-in page', false);
    expect(signIn.headers.get('content-security-policy')).toContain("form-action 'self'");
    const refused = await sb.request('POST', '/_sandbox/login', 'token=wrong', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(refused.status).toBe(401);
    expectPolicy(refused, 'refused sign-in', false);
  });
});
