// The control plane (/_sandbox, JSON routes and dashboard alike) against a web page open in the
// developer's browser: a foreign Host (DNS rebinding) is refused on every route, a cross-site or
// other-port write is refused on every state-changing route, and the JSON routes take writes only
// as application/json, so no HTML form reaches them. What the CLI sends keeps working. The routes
// are read from the app itself, so a route added later is covered without being listed here.
import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { ErrorBody } from '../../src/errors.js';
import { startCliSandbox } from '../helpers/cli-sandbox.js';
import { dbFingerprint } from '../fuzz/fuzz-kit.js';
import { controlRoutes } from '../helpers/control-routes.js';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';

const ROUTES = controlRoutes();
const WRITES = ROUTES.filter((route) => route.writes);
/** The dashboard's HTML forms, which stay forms (and meet the CSRF check after the guard). */
const isForm = (path: string) => path === '/_sandbox/login' || path.startsWith('/_sandbox/dashboard/');
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'content-type': 'application/json' };
/** What a browser tab at http://127.0.0.1:4010 sends to its own sandbox. */
const SAME_ORIGIN = { host: '127.0.0.1:4010', origin: 'http://127.0.0.1:4010', 'sec-fetch-site': 'same-origin' };

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

/** An approved S2S payment; the tests check it survives a refused reset. */
async function payment(on: TestSandbox = sb): Promise<string> {
  const res = await on.request('POST', '/api/s2s', s2sBody({ ccno: '4242424242424242' }));
  expect(res.status, res.text).toBe(200);
  return res.json.transID as string;
}

const exists = async (transID: string, on: TestSandbox = sb, headers: Record<string, string> = {}) =>
  (await on.request('GET', `/_sandbox/transactions/${transID}`, undefined, headers)).status === 200;

/** A write of the kind the route takes (a form or JSON), with `headers` on top. */
function write(route: { method: string; path: string }, headers: Record<string, string>) {
  return isForm(route.path)
    ? sb.request(route.method, route.path, 'csrf=x', { ...FORM, ...headers })
    : sb.request(route.method, route.path, '{}', { ...JSON_TYPE, ...headers });
}

it('finds the control routes in the app, the dashboard and the state routes included', () => {
  const names = ROUTES.map((route) => `${route.method} ${route.path}`);
  expect(names).toEqual(
    expect.arrayContaining([
      'POST /_sandbox/reset',
      'GET /_sandbox/export',
      'POST /_sandbox/import',
      'GET /_sandbox/',
      'GET /_sandbox',
      'POST /_sandbox/dashboard/authenticate',
      'DELETE /_sandbox/faults',
      'GET /_sandbox/stream',
    ]),
  );
  expect(WRITES.length).toBeGreaterThan(15);
});

describe('Host allowlist (DNS rebinding)', () => {
  it.each(ROUTES.map((route) => [route.method, route.path] as const))(
    '%s %s with Host evil.example is 403 host_not_allowed and changes nothing',
    async (method, path) => {
      const before = dbFingerprint(sb);
      const res = await sb.request(method, path, method === 'GET' ? undefined : '{}', {
        ...JSON_TYPE,
        host: 'evil.example:4010',
        accept: 'text/html',
      });
      expect(res.status).toBe(403);
      expect(res.json.error).toMatchObject({ code: 'host_not_allowed', param: 'host' });
      expect(res.json.error.message).toContain('"evil.example:4010"');
      expect(res.json.error.message).toContain('--allowed-host evil.example');
      expect(dbFingerprint(sb)).toEqual(before);
    },
  );

  it('GET /_sandbox/export under a foreign name gives away no key, even with the control token', async () => {
    const guarded = createTestSandbox({ controlToken: 'ctl_secret' });
    try {
      const res = await guarded.request('GET', '/_sandbox/export', undefined, {
        host: 'rebind.evil.example',
        authorization: 'Bearer ctl_secret',
      });
      expect(res.status).toBe(403);
      expect(res.text).not.toContain(CREDS.privateKey);
      expect(res.text).not.toContain(CREDS.apiKey);
      expect(res.text).not.toContain(CREDS.secret);
      expect(
        (await guarded.request('GET', '/_sandbox/export', undefined, { host: '127.0.0.1:4010', authorization: 'Bearer ctl_secret' })).text,
      ).toContain(CREDS.privateKey);
    } finally {
      guarded.close();
    }
  });

  it.each([
    'localhost:4010',
    'localhost',
    '127.0.0.1:4010',
    '127.8.9.10:1',
    '[::1]:4010',
    'app.localhost:4010',
    'sandbox.test',
    'SANDBOX.TEST:8080',
  ])('answers Host %s (loopback, or the host of --public-url)', async (host) => {
    expect((await sb.request('GET', '/_sandbox/export', undefined, { host })).status).toBe(200);
    expect((await sb.request('GET', '/_sandbox/', undefined, { host })).status).toBe(200);
  });

  it.each(['127.0.0.1.evil.example', 'localhost.evil.example', '1127.0.0.1', '[::2]:4010', 'sandbox.test.evil.example'])(
    'refuses Host %s',
    async (host) => {
      expect((await sb.request('GET', '/_sandbox/health', undefined, { host })).status).toBe(403);
    },
  );

  it('answers every --allowed-host (at any port unless the entry names one)', async () => {
    const lan = createTestSandbox({ allowedHost: ['sandbox.internal', '192.168.1.5:4010'] });
    try {
      const status = async (host: string) => (await lan.request('GET', '/_sandbox/health', undefined, { host })).status;
      expect(await status('sandbox.internal:9999')).toBe(200);
      expect(await status('192.168.1.5:4010')).toBe(200);
      expect(await status('192.168.1.5:4011')).toBe(403);
      expect(await status('other.internal')).toBe(403);
      // The public URL's host still counts beside them.
      expect(await status('sandbox.test')).toBe(200);
    } finally {
      lan.close();
    }
  });

  it('the host of an https --public-url, and a write from that origin behind a TLS proxy', async () => {
    const proxied = createTestSandbox({ publicUrl: 'https://pay.example.dev' });
    try {
      const res = await proxied.request(
        'POST',
        '/_sandbox/clock/advance',
        { duration: '1s' },
        { host: 'pay.example.dev', origin: 'https://pay.example.dev', 'sec-fetch-site': 'same-origin' },
      );
      expect(res.status, res.text).toBe(200);
      expect((await proxied.request('GET', '/_sandbox/health', undefined, { host: 'sandbox.test' })).status).toBe(403);
    } finally {
      proxied.close();
    }
  });
});

describe('cross-site writes', () => {
  it.each(WRITES.map((route) => [route.method, route.path] as const))(
    '%s %s refuses Sec-Fetch-Site cross-site and same-site, a foreign Origin and Origin null',
    async (method, path) => {
      const before = dbFingerprint(sb);
      const refused: Record<string, string>[] = [
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:5173' },
        { origin: 'http://evil.example' },
        { origin: 'null' },
        { host: '127.0.0.1:4010', origin: 'http://127.0.0.1:5173' },
        { host: '127.0.0.1:4010', origin: 'https://127.0.0.1:4010' },
      ];
      for (const headers of refused) {
        const res = await write({ method, path }, headers);
        expect(res.status, JSON.stringify(headers)).toBe(403);
        expect(res.json.error.code).toBe('cross_site_refused');
        // A body-less write (what a page's no-cors fetch() can send without a preflight) too.
        const bodiless = await sb.request(method, path, undefined, { 'content-type': '', 'content-length': '0', ...headers });
        expect(bodiless.status, `body-less ${JSON.stringify(headers)}`).toBe(403);
        expect(bodiless.json.error.code).toBe('cross_site_refused');
      }
      expect(dbFingerprint(sb)).toEqual(before);
    },
  );

  // The Origin must be the sandbox's own exactly: one that merely starts with it (another port
  // whose number begins with 4010, a host under it) or carries userinfo is another page's.
  const LOOKALIKES = [
    'http://127.0.0.1:40101',
    'http://127.0.0.1:4010.evil.test',
    'http://127.0.0.1:4010@evil.test',
    'http://user@127.0.0.1:4010',
    'http://127.0.0.1:4010:4010',
    'http://127.0.0.1:4010/',
  ];

  it.each(WRITES.map((route) => [route.method, route.path] as const))(
    '%s %s refuses an Origin that only starts with its own',
    async (method, path) => {
      const before = dbFingerprint(sb);
      for (const origin of LOOKALIKES) {
        const res = await write({ method, path }, { host: '127.0.0.1:4010', origin });
        expect(res.status, origin).toBe(403);
        expect(res.json.error).toMatchObject({ code: 'cross_site_refused', param: 'origin' });
      }
      expect(dbFingerprint(sb)).toEqual(before);
    },
  );

  it("refuses an Origin that only starts with --public-url's, and takes that origin itself", async () => {
    const proxied = createTestSandbox({ publicUrl: 'https://pay.example.dev' });
    try {
      const advance = (origin: string) =>
        proxied.request('POST', '/_sandbox/clock/advance', { duration: '1s' }, { host: 'pay.example.dev', origin });
      for (const origin of [
        'https://pay.example.dev.evil.test',
        'https://pay.example.dev:4430',
        'https://pay.example.dev@evil.test',
        'https://user@pay.example.dev',
      ]) {
        expect((await advance(origin)).status, origin).toBe(403);
      }
      expect((await advance('https://pay.example.dev')).status).toBe(200);
    } finally {
      proxied.close();
    }
  });

  it('a cross-site HTML form (urlencoded or text/plain) to POST /_sandbox/reset wipes nothing', async () => {
    const transID = await payment();
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const res = await sb.request('POST', '/_sandbox/reset', 'a=b', {
        'content-type': type,
        host: '127.0.0.1:4010',
        origin: 'http://evil.example',
        'sec-fetch-site': 'cross-site',
      });
      expect(res.status).toBe(403);
      expect(res.json.error.code).toBe('cross_site_refused');
    }
    expect(await exists(transID)).toBe(true);
  });

  it('a page on another port of 127.0.0.1 cannot reset a sandbox with --control-token, though the browser sends the cookie', async () => {
    const guarded = createTestSandbox({ controlToken: 'ctl_secret' });
    try {
      const transID = await payment(guarded);
      const cookie = 'sandbox_control=ctl_secret';
      const crossSite: Record<string, string>[] = [
        { origin: 'http://127.0.0.1:5173', 'sec-fetch-site': 'same-site' },
        { origin: 'http://127.0.0.1:5173' },
        { 'sec-fetch-site': 'same-site' },
      ];
      for (const headers of crossSite) {
        const res = await guarded.request('POST', '/_sandbox/reset', '{}', { ...JSON_TYPE, host: '127.0.0.1:4010', cookie, ...headers });
        expect(res.status, JSON.stringify(headers)).toBe(403);
        expect(res.json.error.code).toBe('cross_site_refused');
        expect(res.json.error.message).toContain('port included');
      }
      expect(await exists(transID, guarded, { cookie })).toBe(true);
      // The same cookie from the sandbox's own origin (the dashboard) works.
      const own = await guarded.request('POST', '/_sandbox/reset', '{}', { ...JSON_TYPE, ...SAME_ORIGIN, cookie });
      expect(own.status, own.text).toBe(200);
      expect(await exists(transID, guarded, { cookie })).toBe(false);
    } finally {
      guarded.close();
    }
  });

  it('the sign-in form refuses a cross-site post too', async () => {
    const guarded = createTestSandbox({ controlToken: 'ctl_secret' });
    try {
      const res = await guarded.request('POST', '/_sandbox/login', 'token=ctl_secret', {
        ...FORM,
        origin: 'http://evil.example',
        'sec-fetch-site': 'cross-site',
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect((await guarded.request('POST', '/_sandbox/login', 'token=ctl_secret', { ...FORM, ...SAME_ORIGIN })).status).toBe(303);
    } finally {
      guarded.close();
    }
  });

  it('reads stay open to the dashboard: a GET carries no write check', async () => {
    expect(
      (await sb.request('GET', '/_sandbox/health', undefined, { 'sec-fetch-site': 'cross-site', origin: 'http://evil.example' })).status,
    ).toBe(200);
  });
});

describe('JSON-only writes on the JSON routes', () => {
  it.each(WRITES.filter((route) => !isForm(route.path)).map((route) => [route.method, route.path] as const))(
    '%s %s refuses a body that is not application/json (a form, text/plain, no Content-Type)',
    async (method, path) => {
      const before = dbFingerprint(sb);
      for (const [body, headers] of [
        ['a=b', FORM],
        ['{}', { 'content-type': 'text/plain' }],
        // A body with no Content-Type at all (content-length as a socket would send it).
        ['{}', { 'content-type': '', 'content-length': '2' }],
      ] as const) {
        const res = await sb.request(method, path, body, headers);
        expect(res.status, `${headers['content-type']}`).toBe(400);
        expect(res.json.error.code).toBe('unsupported_content_type');
        expect(res.json.error.message).toContain('Content-Type must be application/json');
      }
      expect(dbFingerprint(sb)).toEqual(before);
    },
  );

  // The document marks these bodies optional (or absent): a generated client sends no body and no
  // Content-Type, and the guard lets that through to the route, which answers as for {}.
  it.each(WRITES.filter((route) => !isForm(route.path)).map((route) => [route.method, route.path] as const))(
    '%s %s takes a write with no body and no Content-Type as far as the route',
    async (method, path) => {
      const res = await sb.request(method, path, undefined, { 'content-type': '', 'content-length': '0' });
      expect(res.status, res.text).toBeLessThan(500);
      expect(res.json?.error?.code, res.text).not.toBe('unsupported_content_type');
    },
  );

  it('POST /_sandbox/chargebacks/{id}/win with no body, as the document says, decides the chargeback', async () => {
    const payment = await sb.request(
      'POST',
      '/v1/payments',
      { amount: 1050, currency: 'EUR' },
      { authorization: `Bearer ${CREDS.apiKey}` },
    );
    const opened = await sb.request('POST', '/_sandbox/chargebacks', { payment_id: payment.json.id });
    expect(opened.status, opened.text).toBe(201);
    const won = await sb.app.request(`/_sandbox/chargebacks/${opened.json.id}/win`, { method: 'POST', headers: { 'content-length': '0' } });
    expect(won.status, await won.clone().text()).toBe(200);
    expect(((await won.json()) as { status: string }).status).toBe('won');
  });

  it('a body-less POST /_sandbox/reset from another origin wipes nothing; from no browser at all (the CLI, a generated client) it resets', async () => {
    const transID = await payment();
    const foreign: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
      { host: '127.0.0.1:4010', origin: 'http://127.0.0.1:5173' },
    ];
    for (const headers of foreign) {
      const res = await sb.app.request('/_sandbox/reset', { method: 'POST', headers: { 'content-length': '0', ...headers } });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(((await res.json()) as ErrorBody).error.code).toBe('cross_site_refused');
    }
    expect(await exists(transID)).toBe(true);
    expect((await sb.app.request('/_sandbox/reset', { method: 'POST' })).status).toBe(200);
    expect(await exists(transID)).toBe(false);
  });

  it('a body-less DELETE without Content-Type is taken: browsers send DELETE across origins only after a preflight', async () => {
    await sb.app.request('/_sandbox/faults', { method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ spec: 'duplicate=2' }) });
    const res = await sb.app.request('/_sandbox/faults', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { deleted: number }).deleted).toBeGreaterThan(0);
  });

  it('what the CLI sends still works: JSON with no Origin, or {} on a body-less write, or the same origin', async () => {
    const transID = await payment();
    expect((await sb.app.request('/_sandbox/faults', { method: 'DELETE', headers: JSON_TYPE, body: '{}' })).status).toBe(200);
    expect(
      (
        await sb.app.request('/_sandbox/clock/advance', {
          method: 'POST',
          headers: { ...JSON_TYPE, ...SAME_ORIGIN },
          body: JSON.stringify({ duration: '1s' }),
        })
      ).status,
    ).toBe(200);
    // A typed address or bookmark is Sec-Fetch-Site: none.
    expect(
      (
        await sb.app.request('/_sandbox/clock/advance', {
          method: 'POST',
          headers: { ...JSON_TYPE, 'sec-fetch-site': 'none' },
          body: JSON.stringify({ duration: '1s' }),
        })
      ).status,
    ).toBe(200);
    const reset = await sb.app.request('/_sandbox/reset', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: '{}',
    });
    expect(reset.status).toBe(200);
    expect(await exists(transID)).toBe(false);
  });

  it('the dashboard forms stay forms: a same-origin Approve form is taken', async () => {
    const transID = (await sb.request('POST', '/api/s2s', s2sBody({ ccno: '4000000000003220' }))).json.transID as string;
    const page = await sb.request('GET', '/_sandbox/', undefined, SAME_ORIGIN);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
    // Chromium sends Origin: null from the dashboard (its Referrer-Policy is no-referrer); Sec-Fetch-Site vouches for it.
    const res = await sb.request(
      'POST',
      '/_sandbox/dashboard/authenticate',
      new URLSearchParams({ csrf, subject: 'transaction', id: transID, outcome: 'approve' }).toString(),
      { ...FORM, ...SAME_ORIGIN, origin: 'null' },
    );
    expect(res.status, res.text).toBe(303);
    expect((await sb.request('GET', `/_sandbox/transactions/${transID}`)).json.status).toBe('Test Approved');
  });
});

describe('--allowed-host and SANDBOX_ALLOWED_HOSTS', () => {
  it('reads the repeatable flag, else the comma-separated variable', () => {
    expect(loadConfig({ allowedHost: ['a.internal', 'b.internal:81'] }, {}).allowedHosts).toEqual(['a.internal', 'b.internal:81']);
    expect(loadConfig({ allowedHost: 'a.internal' }, {}).allowedHosts).toEqual(['a.internal']);
    expect(loadConfig({}, { SANDBOX_ALLOWED_HOSTS: 'a.internal, 10.0.0.5:4010,' }).allowedHosts).toEqual(['a.internal', '10.0.0.5:4010']);
    expect(loadConfig({ allowedHost: ['flag.internal'] }, { SANDBOX_ALLOWED_HOSTS: 'env.internal' }).allowedHosts).toEqual([
      'flag.internal',
    ]);
    expect(loadConfig({}, {}).allowedHosts).toEqual([]);
  });

  it('sandbox start takes --allowed-host more than once (the built CLI; npm run build first)', async () => {
    const cli = await startCliSandbox(['--db', ':memory:', '--quiet', '--allowed-host', 'a.internal', '--allowed-host', 'b.internal:4010']);
    try {
      // fetch() cannot set Host; node:http can, as a rebinding browser effectively does.
      const status = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const req = http.get(`${cli.url}/_sandbox/health`, { headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          });
          req.on('error', reject);
        });
      expect(await status('a.internal:9999')).toBe(200);
      expect(await status('b.internal:4010')).toBe(200);
      expect(await status('c.internal')).toBe(403);
    } finally {
      await cli.stop();
    }
  });

  it.each(['http://a.internal', 'a.internal/path', 'a b', 'a.internal:port'])(
    'refuses --allowed-host %s with a message naming the flag',
    (host) => {
      expect(() => loadConfig({ allowedHost: [host] }, {})).toThrow(/--allowed-host must be a host name or address/);
    },
  );
});
