// TLS as documented, met from both ends. Deliveries: a receiver whose certificate is for client use
// only, one that speaks only TLS 1.0, and ones that offer only TLS 1.2 suites without forward
// secrecy or with CBC fail with error kind `tls` (the first two were graded `network`, the last two
// were sent to); TLS 1.2 with ECDHE and AES-GCM, and TLS 1.3, succeed. The --https server: a client
// that connects and never finishes the handshake is cut off at the headers' time limit (it was held
// 120 s), and a TLS 1.2 client offering only such suites is refused.
import { createServer, request, type Server, type ServerOptions } from 'node:https';
import { connect as connectTcp, type AddressInfo } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { makeCertificate, type PemPair } from '../helpers/certificates.js';
import { s2sBody, senderThread } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'paysandbox-webhook-tls-'));
const ca = makeCertificate({ ca: true });
const serverPair = makeCertificate({ issuer: ca });
writeFileSync(join(dir, 'ca.pem'), ca.cert);
writeFileSync(join(dir, 'server.pem'), serverPair.cert);
writeFileSync(join(dir, 'server-key.pem'), serverPair.key);

const servers: Server[] = [];
let sandbox: RunningServer;
beforeAll(async () => {
  // Trusts the test CA for deliveries, and serves TLS with a certificate it issued.
  const config = loadConfig(
    {
      ...{ port: 0, db: ':memory:', quiet: true, retry: 'none', webhookTimeout: '5s' },
      ...{ webhookCa: join(dir, 'ca.pem'), cert: join(dir, 'server.pem'), key: join(dir, 'server-key.pem') },
    },
    {},
  );
  // The headers' time limit (10 s) shortened, as test/security/limits.test.ts does; not below 3 s,
  // which the TLS handshake and the headers of the tests' own requests took on a loaded CI machine
  // (a 1 s limit reset one of them).
  sandbox = await startServer({ ...config, headersTimeoutMs: 3000 }, senderThread());
});
afterAll(async () => {
  for (const server of servers) {
    server.close();
    server.closeAllConnections();
  }
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An https receiver on 127.0.0.1 answering 200, with `pair` and the TLS options given. */
async function receiver(pair: PemPair, options: ServerOptions = {}): Promise<string> {
  const server = createServer({ cert: pair.cert, key: pair.key, ...options }, (req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  // A handshake the receiver refuses is no concern of the test's.
  server.on('tlsClientError', () => {});
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

/** POSTs JSON to the sandbox, trusting the test CA that issued its certificate; resolves with the status. */
function postJson(path: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${sandbox.url}${path}`, { method: 'POST', ca: ca.cert, headers: { 'content-type': 'application/json' } });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.end(JSON.stringify(body));
  });
}

/** The first attempt of the webhook of a new approved payment sent to `url`. */
async function firstAttempt(url: string) {
  expect(await postJson('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: url }))).toBe(200);
  const delivery = await waitFor(
    () => sandbox.store.deliveries.list({ limit: 100 }).find((d) => d.url === url && d.attempts > 0),
    `an attempt to ${url}`,
    15_000,
  );
  return sandbox.store.deliveries.attempts(delivery.id)[0]!;
}

describe('deliveries to https receivers', () => {
  it('a receiver whose certificate is for client use only fails with error kind tls', async () => {
    const url = await receiver(makeCertificate({ issuer: ca, use: 'client' }));
    const attempt = await firstAttempt(url);
    expect(attempt).toMatchObject({ errorKind: 'tls', responseStatus: null });
    expect(attempt.errorMessage).toMatch(/the TLS handshake failed: INVALID_PURPOSE/);
  });

  it('a receiver that speaks only TLS 1.0 fails with error kind tls', async () => {
    const url = await receiver(makeCertificate({ issuer: ca }), {
      ...{ minVersion: 'TLSv1', maxVersion: 'TLSv1' },
      ciphers: 'DEFAULT@SECLEVEL=0',
    });
    const attempt = await firstAttempt(url);
    expect(attempt).toMatchObject({ errorKind: 'tls', responseStatus: null });
    expect(attempt.errorMessage).toMatch(/the TLS handshake failed: .*protocol version/);
  });

  it.each([
    ['without forward secrecy', 'AES128-GCM-SHA256'],
    ['with CBC', 'ECDHE-RSA-AES128-SHA256'],
  ])('a TLS 1.2 receiver offering only a suite %s (%s) is not sent to: error kind tls', async (_what, suite) => {
    const url = await receiver(makeCertificate({ issuer: ca }), { maxVersion: 'TLSv1.2', ciphers: suite });
    const attempt = await firstAttempt(url);
    expect(attempt).toMatchObject({ errorKind: 'tls', responseStatus: null });
    expect(attempt.errorMessage).toMatch(/handshake failure/);
  });

  it('a TLS 1.2 receiver with ECDHE and AES-GCM, and a TLS 1.3 one, get the webhook', async () => {
    const tls12 = await receiver(makeCertificate({ issuer: ca }), { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' });
    const tls13 = await receiver(makeCertificate({ issuer: ca }), { minVersion: 'TLSv1.3' });
    for (const url of [tls12, tls13]) expect(await firstAttempt(url)).toMatchObject({ errorKind: null, responseStatus: 200 });
  });
});

describe('the --https server', () => {
  const port = () => Number(new URL(sandbox.url).port);

  it('cuts off a client that connects and never finishes the TLS handshake at the headers time limit', async () => {
    const socket = connectTcp(port(), '127.0.0.1');
    let closed = false;
    socket.on('close', () => (closed = true));
    socket.on('error', () => {});
    // Node's default held it 120 s; the limit here is 3 s (checked every second).
    await waitFor(() => closed || undefined, 'the server to close the silent connection', 10_000);
  });

  /** How a TLS 1.2 client offering only `ciphers` fares against the sandbox: 'connected' or the error. */
  const handshake = (ciphers: string) =>
    new Promise<string>((resolve) => {
      const socket = connectTls(
        { host: '127.0.0.1', port: port(), ca: ca.cert, servername: 'localhost', maxVersion: 'TLSv1.2', ciphers },
        () => {
          resolve('connected');
          socket.end();
        },
      );
      socket.on('error', (err) => resolve(err.message));
    });

  it('refuses a TLS 1.2 client offering only suites without forward secrecy or with CBC, and accepts ECDHE with AES-GCM', async () => {
    expect(await handshake('AES128-GCM-SHA256:AES256-SHA')).toMatch(/handshake failure/);
    expect(await handshake('ECDHE-RSA-AES128-SHA256:ECDHE-RSA-AES128-SHA')).toMatch(/handshake failure/);
    expect(await handshake('ECDHE-RSA-AES128-GCM-SHA256')).toBe('connected');
  });
});
