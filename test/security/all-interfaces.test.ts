// A sandbox listening on every interface (--host 0.0.0.0, as in a container) (#37.3): it starts only
// with --control-token or --control-open; its API and pages answer callers from other addresses;
// the control plane still refuses a foreign Host and a foreign Origin, and without the token (or
// --control-open) a caller that is not on loopback; --public-url makes the URLs it hands out
// (authurl, a checkout session's url) point there, and the dashboard's links are relative. The
// "other address" is this machine's own non-loopback address (traffic that never leaves it).
import { request as httpRequest } from 'node:http';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type ConfigFlags } from '../../src/config.js';
import { SandboxError } from '../../src/errors.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { CREDS, s2sBody } from '../helpers/test-sandbox.js';
import { httpClient } from '../helpers/http.js';
import { runBuiltCli } from '../helpers/cli-sandbox.js';

/** This machine's first non-loopback IPv4 address, if it has one. */
const ADDRESS = Object.values(networkInterfaces())
  .flat()
  .find((i) => i?.family === 'IPv4' && !i.internal)?.address;

/** A client of the sandbox at ADDRESS (a non-loopback caller); `host` overrides the Host header. */
function clientAt(sandbox: RunningServer, host?: string) {
  const port = new URL(sandbox.url).port;
  return httpClient(
    (path, init) =>
      new Promise<Response>((resolve, reject) => {
        const headers = { ...(init.headers as Record<string, string>), ...(host ? { host } : {}) };
        const req = httpRequest({ host: ADDRESS, port, path, method: init.method, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const answer = new Headers();
            for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') answer.set(name, value);
            resolve(new Response(res.statusCode === 204 ? null : Buffer.concat(chunks), { status: res.statusCode, headers: answer }));
          });
        });
        req.on('error', reject);
        req.end(init.body as string | undefined);
      }),
  );
}

/** A real sandbox on 0.0.0.0:<free port> with `flags`. */
function startOnAllInterfaces(flags: ConfigFlags): Promise<RunningServer> {
  return startServer(loadConfig({ host: '0.0.0.0', port: 0, db: ':memory:', quiet: true, retry: 'none', ...flags }, {}));
}

describe('the start refuses to listen beyond loopback without a decision about the control plane', () => {
  it.each([['0.0.0.0'], ['::'], ['192.0.2.7']])('--host %s alone is refused, naming --control-token and --control-open', (host) => {
    const start = () => loadConfig({ host }, {});
    expect(start).toThrow(SandboxError);
    expect(start).toThrow(
      new RegExp(`^--host ${host.replace(/\./g, '\\.')} listens beyond this machine, .*--control-token <token>.*--control-open`),
    );
  });

  it('sandbox start --host 0.0.0.0 exits 1 with that one line, before it listens', async () => {
    const run = await runBuiltCli(['start', '--host', '0.0.0.0', '--port', '0', '--db', ':memory:']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^sandbox: --host 0\.0\.0\.0 listens beyond this machine, .*--control-open/),
    ]);
  });

  it('the variables count as the flags do', () => {
    expect(() => loadConfig({}, { SANDBOX_HOST: '0.0.0.0' })).toThrow(/^SANDBOX_HOST 0\.0\.0\.0 listens beyond this machine/);
    expect(loadConfig({}, { SANDBOX_HOST: '0.0.0.0', SANDBOX_CONTROL_OPEN: '1' }).controlOpen).toBe(true);
    expect(loadConfig({}, { SANDBOX_HOST: '0.0.0.0', SANDBOX_CONTROL_TOKEN: 't' }).controlToken).toBe('t');
    expect(() => loadConfig({}, { SANDBOX_HOST: '0.0.0.0', SANDBOX_CONTROL_OPEN: 'yes' })).toThrow(
      'SANDBOX_CONTROL_OPEN must be 1, true, 0 or false, got "yes"',
    );
  });

  it('loopback hosts need neither; --control-open with --control-token is refused', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) expect(loadConfig({ host }, {}).host).toBe(host);
    expect(() => loadConfig({ host: '0.0.0.0', controlOpen: true, controlToken: 't' }, {})).toThrow(
      /^--control-open and --control-token exclude each other/,
    );
  });
});

describe.skipIf(ADDRESS === undefined)('listening on 0.0.0.0, reached from another address', () => {
  describe('with --control-token', () => {
    let sandbox: RunningServer;
    beforeAll(async () => {
      sandbox = await startOnAllInterfaces({ controlToken: 'ci-token', allowedHost: ADDRESS });
    });
    afterAll(() => sandbox?.close());

    it('the API answers; the control plane needs the token', async () => {
      const api = clientAt(sandbox);
      const paid = await api.post('/api/s2s', s2sBody({ ccno: '4242424242424242' }));
      expect(paid.json).toMatchObject({ status: 'Test Approved' });
      expect((await api.get('/_sandbox/health')).status).toBe(401);
      expect((await api.get('/_sandbox/health', { authorization: 'Bearer ci-token' })).json).toMatchObject({ status: 'ok' });
    });

    it('a foreign Host and a foreign Origin are refused even with the token', async () => {
      const rebound = clientAt(sandbox, `rebind.example:${new URL(sandbox.url).port}`);
      const health = await rebound.get('/_sandbox/health', { authorization: 'Bearer ci-token' });
      expect([health.status, health.json]).toMatchObject([403, { error: { code: 'host_not_allowed' } }]);
      const reset = await clientAt(sandbox).post(
        '/_sandbox/reset',
        {},
        { authorization: 'Bearer ci-token', origin: 'http://evil.example' },
      );
      expect([reset.status, reset.json]).toMatchObject([403, { error: { code: 'cross_site_refused' } }]);
    });
  });

  describe('with --control-open and --public-url', () => {
    const PUBLIC = 'http://sandbox.example:4010';
    let sandbox: RunningServer;
    beforeAll(async () => {
      sandbox = await startOnAllInterfaces({ controlOpen: true, publicUrl: PUBLIC, allowedHost: ADDRESS });
    });
    afterAll(() => sandbox?.close());

    it('the control plane answers without a token; a foreign Host, Origin or cross-site write is still refused', async () => {
      const control = clientAt(sandbox);
      expect((await control.get('/_sandbox/health')).json).toMatchObject({ status: 'ok' });
      expect((await clientAt(sandbox, 'rebind.example').get('/_sandbox/health')).status).toBe(403);
      const fromPage = await control.post('/_sandbox/reset', {}, { origin: 'http://evil.example' });
      expect([fromPage.status, fromPage.json]).toMatchObject([403, { error: { code: 'cross_site_refused' } }]);
      expect((await control.post('/_sandbox/reset', {}, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    });

    it("authurl, authstatus and a checkout session's url point at --public-url, and those pages answer there", async () => {
      const api = clientAt(sandbox);
      const challenged = await api.post('/api/s2s', s2sBody());
      expect(challenged.json.authurl).toMatch(new RegExp(`^${PUBLIC}/authenticate/`));
      expect(challenged.json.authstatus).toMatch(new RegExp(`^${PUBLIC}/api/s2s/status/`));
      const page = await clientAt(sandbox, 'sandbox.example:4010').get(new URL(challenged.json.authurl).pathname);
      expect(page.status).toBe(200);
      const session = await api.post(
        '/v1/checkout/sessions',
        { amount: 1050, currency: 'EUR', methods: ['card'], return_url: 'https://shop.example/return' },
        { authorization: `Bearer ${CREDS.apiKey}` },
      );
      expect(session.json, session.text).toMatchObject({ url: expect.stringMatching(new RegExp(`^${PUBLIC}/pay/`)) });
    });

    it("the dashboard answers under --public-url's host, and its links are relative (right under any address)", async () => {
      const dashboard = await clientAt(sandbox, 'sandbox.example:4010').get('/_sandbox/', { accept: 'text/html' });
      expect(dashboard.status).toBe(200);
      const links = [...dashboard.text.matchAll(/(?:href|action|src)="([^"]*)"/g)].map((m) => m[1]);
      expect(links.length).toBeGreaterThan(3);
      expect(links.filter((link) => /^[a-z]+:\/\//i.test(link))).toEqual([]);
    });
  });
});
