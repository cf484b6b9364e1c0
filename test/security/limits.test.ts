// Limits a hostile or broken client meets: a 2 MiB body is a 413 with the error shape on JSON and
// form endpoints (and changes nothing); a client that sends its headers or its body too slowly is
// cut off (proved with a raw socket on a real server, short timeouts, a deadline); the control API
// refuses non-loopback callers without the token, and with --control-token every caller without
// the right bearer, on every control route.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { ErrorBody } from '../../src/errors.js';
import { controlGuard } from '../../src/http/middleware/control-guard.js';
import { isLoopback } from '../../src/http/middleware/client-ip.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { Hono } from 'hono';
import { createOnError } from '../../src/http/on-error.js';
import type { AppEnv } from '../../src/http/app-env.js';
import { silentLogger } from '../../src/runtime/logger.js';
import { CREDS, createTestSandbox } from '../helpers/test-sandbox.js';
import { dbFingerprint } from '../fuzz/fuzz-kit.js';
import { controlRoutes } from '../helpers/control-routes.js';

const TWO_MIB = 2 * 1024 * 1024;

describe('body size limit: 413 with the error shape', () => {
  const sb = createTestSandbox();
  afterAll(() => sb.close());
  const json = JSON.stringify({ pad: 'x'.repeat(TWO_MIB) });
  const form = `encrypted_data=${'A'.repeat(TWO_MIB)}`;
  it.each([
    ['/api/s2s', json, 'application/json', {}],
    ['/api/s2s/encrypt', form, 'application/x-www-form-urlencoded', {}],
    ['/api/transactions/refund-request', json, 'application/json', {}],
    ['/v1/payments', json, 'application/json', { authorization: `Bearer ${CREDS.apiKey}` }],
    ['/v1/checkout/sessions', json, 'application/json', { authorization: `Bearer ${CREDS.apiKey}` }],
    ['/_sandbox/faults', json, 'application/json', {}],
  ])('POST %s with a 2 MiB body', async (path, body, type, headers) => {
    const before = dbFingerprint(sb);
    const res = await sb.request('POST', path, body, { 'content-type': type, ...headers });
    expect(res.status).toBe(413);
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code: 'body_too_large' });
    expect(res.json.error.message).toMatch(/larger than 1048576 bytes/);
    expect(res.json.error.request_id).toMatch(/^req_/);
    expect(dbFingerprint(sb)).toEqual(before);
  });

  // A browser posts the customer pages' forms: their 413 is an HTML page (test/routes/page-errors.test.ts).
  it.each(['/authenticate/some-token', '/pay/some-token/card'])('POST %s with a 2 MiB form: a 413 page', async (path) => {
    const before = dbFingerprint(sb);
    const res = await sb.request('POST', path, form, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toMatch(/larger than 1048576 bytes/);
    expect(dbFingerprint(sb)).toEqual(before);
  });
});

/** Opens a raw socket, runs `drive` on it, and resolves with what the server sent and how long until it closed. */
function rawExchange(
  port: number,
  drive: (socket: net.Socket) => void,
  deadlineMs: number,
): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the slow connection open for more than ${deadlineMs} ms`));
    }, deadlineMs);
    socket.on('connect', () => drive(socket));
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(deadline);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
  });
}

/** Writes `lines` one at a time, `everyMs` apart, until the socket closes. */
function trickle(socket: net.Socket, lines: string[], everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || socket.writableEnded) return clearInterval(timer);
    socket.write(lines[i++ % lines.length]!);
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

describe('slow clients on a real server', () => {
  let running: RunningServer;
  let port: number;
  const errors: string[] = [];
  beforeAll(async () => {
    const logger = { ...silentLogger, error: (message: string) => void errors.push(message) };
    running = await startServer(
      { ...loadConfig({ port: 0, db: ':memory:', quiet: true, retry: 'none' }, {}), headersTimeoutMs: 400, requestTimeoutMs: 1200 },
      { logger },
    );
    port = Number(new URL(running.url).port);
  });
  afterAll(() => running.close());

  it('the defaults are headers within 10 s and the whole request within 30 s', () => {
    const config = loadConfig({}, {});
    expect(config.headersTimeoutMs).toBe(10_000);
    expect(config.requestTimeoutMs).toBe(30_000);
  });

  it('a client that sends its headers slowly (slowloris) gets 408 and is cut off', async () => {
    const result = await rawExchange(
      port,
      (socket) => {
        socket.write('POST /api/s2s HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        trickle(socket, ['X-Slow: a\r\n'], 100);
      },
      5000,
    );
    expect(result.text).toMatch(/^HTTP\/1\.1 408/);
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(350);
  });

  it('a client that sends its body slowly is cut off at the request timeout', async () => {
    const result = await rawExchange(
      port,
      (socket) => {
        socket.write('POST /api/s2s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
        trickle(socket, ['"a'], 100);
      },
      6000,
    );
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(1100);
    expect(result.text === '' || /^HTTP\/1\.1 (408|400)/.test(result.text)).toBe(true);
  });

  it('a normal request on the same server still works, and no cut-off was logged as a 500 bug', async () => {
    const res = await fetch(`${running.url}/_sandbox/health`);
    expect(res.status).toBe(200);
    expect(errors).toEqual([]);
  });
});

describe('control API: loopback only without a token', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    [null, true],
    ['10.0.0.5', false],
    ['192.168.1.20', false],
    ['::ffff:10.0.0.5', false],
    ['fe80::1', false],
    ['128.0.0.1', false],
    ['::ffff:128.0.0.1', false],
    ['1127.0.0.1', false],
  ])('isLoopback(%s) is %s', (address, expected) => {
    expect(isLoopback(address)).toBe(expected);
  });

  /** A request that claims to come from `address` (what @hono/node-server's getConnInfo reads). */
  const from = (address: string) => ({
    incoming: { socket: { remoteAddress: address, remotePort: 40000, remoteFamily: address.includes(':') ? 'IPv6' : 'IPv4' } },
  });

  // Read from the app, so a control route added later is covered too.
  const CONTROL_ROUTES = controlRoutes().map((route) => [route.method, route.path] as const);

  it.each(CONTROL_ROUTES)('%s %s from 10.0.0.5 is 401 control_forbidden and changes nothing', async (method, path) => {
    const sb = createTestSandbox();
    try {
      const before = dbFingerprint(sb);
      const res = await sb.app.request(
        path,
        { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' || method === 'DELETE' ? undefined : '{}' },
        from('10.0.0.5'),
      );
      expect(res.status).toBe(401);
      const body = (await res.json()) as ErrorBody;
      expect(body.error.code).toBe('control_forbidden');
      expect(body.error.message).toContain('--control-token');
      expect(dbFingerprint(sb)).toEqual(before);
    } finally {
      sb.close();
    }
  });

  it('the guard lets loopback through without a token', async () => {
    const sb = createTestSandbox();
    try {
      const res = await sb.app.request('/_sandbox/health', {}, from('127.0.0.1'));
      expect(res.status).toBe(200);
    } finally {
      sb.close();
    }
  });

  describe('with --control-token', () => {
    const TOKEN = 'ctl_secret_token_123';
    // The sign-in form is the one route a browser without the token must reach.
    it.each(CONTROL_ROUTES.filter(([, path]) => path !== '/_sandbox/login'))(
      '%s %s: no bearer, a wrong one of another length and of the same length are all 401',
      async (method, path) => {
        const sb = createTestSandbox({ controlToken: TOKEN });
        try {
          const before = dbFingerprint(sb);
          for (const auth of [undefined, 'Bearer nope', `Bearer ${TOKEN.slice(0, -1)}X`, `Bearer ${TOKEN}extra`, TOKEN, `Basic ${TOKEN}`]) {
            const headers: Record<string, string> = { 'content-type': 'application/json' };
            if (auth) headers.authorization = auth;
            const res = await sb.app.request(path, { method, headers, body: method === 'GET' || method === 'DELETE' ? undefined : '{}' });
            expect(res.status, `${auth}`).toBe(401);
            expect(((await res.json()) as ErrorBody).error.code).toBe('control_forbidden');
          }
          expect(dbFingerprint(sb)).toEqual(before);
        } finally {
          sb.close();
        }
      },
    );

    it('the right bearer works from any address', async () => {
      const sb = createTestSandbox({ controlToken: TOKEN });
      try {
        const res = await sb.app.request('/_sandbox/health', { headers: { authorization: `Bearer ${TOKEN}` } }, from('203.0.113.7'));
        expect(res.status).toBe(200);
      } finally {
        sb.close();
      }
    });
  });

  it('controlGuard alone: a forged non-loopback address is refused, loopback passes', async () => {
    const app = new Hono<AppEnv>();
    app.onError(createOnError(silentLogger));
    app.use('*', controlGuard({ controlToken: undefined, controlOpen: false, publicUrl: undefined, allowedHosts: [] }));
    app.get('/x', (c) => c.text('ok'));
    expect((await app.request('/x', {}, from('198.51.100.1'))).status).toBe(401);
    expect((await app.request('/x', {}, from('::1'))).status).toBe(200);
  });
});
