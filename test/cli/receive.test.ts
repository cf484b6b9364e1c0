// `sandbox receive` in-process: verifies signatures, decrypts S2S data, prints, answers --status.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import type { CliIo } from '../../src/cli/io.js';
import { encryptText } from '../../src/crypto/s2s-cipher.js';
import { signatureHeader, signatureHeaders } from '../../src/signatures/signing.js';
import type { RunningServer } from '../../src/server/start-server.js';
import { CREDS, s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import { runCli } from '../helpers/cli-harness.js';
import { BIN } from '../helpers/cli-sandbox.js';

let sandbox: RunningServer | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function receive(args: string[]) {
  const out: string[] = [];
  const io: CliIo = { out: (t) => void out.push(t), err: (t) => void out.push(t) };
  const done = buildProgram(io).parseAsync(['node', 'sandbox', 'receive', '--port', '0', ...args]);
  const banner = await waitFor(() => out.find((line) => line.startsWith('receiving webhooks at')), 'the receiver');
  return { out, done, url: /at (http:\/\/\S+?)\/ /.exec(banner)![1]! };
}

const post = (url: string, body: string, headers: Record<string, string>) => fetch(url, { method: 'POST', body, headers });

it('decrypts S2S data, checks the signature and answers --status', async () => {
  const r = await receive(['--private-key', CREDS.privateKey, '--public-key', CREDS.publicKey, '--status', '202', '--count', '2']);
  const body = new URLSearchParams({
    data: encryptText('transID=123456789012345&status=Test+Approved&order_status=25', {
      privateKey: CREDS.privateKey,
      publicKey: CREDS.publicKey,
    }),
  }).toString();
  const headers = {
    'content-type': 'application/x-www-form-urlencoded',
    'x-sandbox-event-id': 'evt_1',
    'x-sandbox-event-type': 'payment.authorized',
  };
  const good = await post(`${r.url}/hook`, body, { ...headers, 'x-sandbox-signature': signatureHeader(CREDS.secret, 'plain', body, 0) });
  expect(good.status).toBe(202);
  const bad = await post(`${r.url}/hook`, body, { ...headers, 'x-sandbox-signature': signatureHeader('whsec_other', 'plain', body, 0) });
  expect(bad.status).toBe(202);
  await r.done;
  const text = r.out.join('\n');
  expect(text).toMatch(
    /payment\.authorized evt_1 \/hook {2}signature valid\n {4}transID +123456789012345\n {4}status +Test Approved\n {4}order_status +25/,
  );
  expect(text).toMatch(/payment\.authorized evt_1 \/hook {2}signature INVALID/);
});

it('--reject-invalid answers 400 to a bad signature, and the sandbox retries until one verifies', async () => {
  const r = await receive(['--reject-invalid', '--secret', 'whsec_rotated', '--count', '2']);
  expect(r.out[0]).toMatch(/answering 200 \(400 to a bad signature\); Ctrl-C to stop$/);
  const body = 'transID=1&status=Test+Approved';
  const headers = {
    'content-type': 'application/x-www-form-urlencoded',
    'x-sandbox-event-id': 'evt_3',
    'x-sandbox-event-type': 'payment.authorized',
  };
  const bad = await post(`${r.url}/hook`, body, { ...headers, 'x-sandbox-signature': signatureHeader(CREDS.secret, 'plain', body, 0) });
  expect(bad.status).toBe(400);
  expect(await bad.text()).toBe('invalid signature (sandbox receive --reject-invalid)');
  const good = await post(`${r.url}/hook`, body, { ...headers, 'x-sandbox-signature': signatureHeader('whsec_rotated', 'plain', body, 0) });
  expect(good.status).toBe(200);
  await r.done;
  expect(r.out.join('\n')).toMatch(/signature INVALID[\s\S]*signature valid/);
});

it('says how to decrypt when the keys are missing, and prints JSON envelopes', async () => {
  const r = await receive(['--json', '--count', '2']);
  await post(`${r.url}/s2s`, 'data=abc', { 'content-type': 'application/x-www-form-urlencoded', 'x-sandbox-event-id': 'evt_1' });
  const envelope = JSON.stringify({
    event: 'refund.created',
    id: 'evt_2',
    data: { refund_id: 're_1', amount: 500 },
    created_at: '2026-01-15T12:00:00.000Z',
  });
  await post(`${r.url}/v1`, envelope, {
    'content-type': 'application/json',
    'x-sandbox-signature': signatureHeader(CREDS.secret, 'plain', envelope, 0),
  });
  await r.done;
  const [first, second] = r.out.slice(1).map((line) => JSON.parse(line));
  expect(first.problem).toBe('encrypted data (encryption_method=aes256): pass --private-key and --public-key to decrypt it');
  expect(second).toMatchObject({ event: 'refund.created', id: 'evt_2', signature_valid: true, fields: { refund_id: 're_1', amount: 500 } });
});

it('receives a real webhook from the sandbox, and prints the child traceparent of the request that made the payment', async () => {
  const r = await receive(['--count', '1']);
  sandbox = await startTestServer();
  await fetch(`${sandbox.url}/api/s2s`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    body: JSON.stringify(s2sBody({ ccno: '4242424242424242', webhook_url: `${r.url}/webhooks` })),
  });
  await r.done;
  expect(r.out[1]).toMatch(/payment\.authorized evt_\S+ \/webhooks delivery whd_\S+ attempt 1 {2}signature valid/);
  // The same trace, a span of the webhook's own.
  const traceparent = /\n {4}traceparent {2}(\S+)/.exec(r.out[1]!)?.[1];
  expect(traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-(?!00f067aa0ba902b7)[0-9a-f]{16}-01$/);
});

it('verifies a real webhook of a sandbox in standard mode, with the seeded secret as given or in its whsec_<base64> form', async () => {
  const r = await receive(['--signature', 'standard', '--reject-invalid', '--json', '--count', '2']);
  const standardForm = await receive(['--signature', 'standard', '--secret', 'whsec_d2hzZWNfdGVzdF9zYW5kYm94', '--json', '--count', '1']);
  sandbox = await startTestServer({ signature: 'standard' });
  for (const url of [`${r.url}/webhooks`, `${standardForm.url}/webhooks`]) {
    await fetch(`${sandbox.url}/api/s2s`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(s2sBody({ ccno: '4242424242424242', webhook_url: url })),
    });
  }
  // A bad signature for the first receiver: it must say INVALID (and answer 400).
  const body = 'transID=1&status=Test+Approved';
  const forged = signatureHeaders({
    mode: 'standard',
    secrets: ['whsec_d2hvZXZlcg=='],
    prefix: 'Sandbox',
    id: 'evt_x',
    timestamp: Math.floor(Date.now() / 1000),
    body,
  });
  expect((await post(`${r.url}/hook`, body, { 'content-type': 'application/x-www-form-urlencoded', ...forged })).status).toBe(400);
  await r.done;
  await standardForm.done;
  const byPath = Object.fromEntries(
    r.out
      .slice(1)
      .map((line) => JSON.parse(line))
      .map((view) => [view.path, view.signature_valid]),
  );
  expect(byPath).toEqual({ '/webhooks': true, '/hook': false });
  expect(JSON.parse(standardForm.out[1]!).signature_valid).toBe(true);
});

it('during a rotation, a receiver that still has the old secret verifies the -Previous header', async () => {
  const r = await receive(['--secret', 'whsec_old', '--header-prefix', 'Acme', '--json', '--count', '1']);
  const body = 'transID=1&status=Test+Approved';
  const headers = signatureHeaders({ mode: 'plain', secrets: ['whsec_new', 'whsec_old'], prefix: 'Acme', id: 'evt_1', timestamp: 0, body });
  await post(`${r.url}/hook`, body, { 'content-type': 'application/x-www-form-urlencoded', ...headers });
  await r.done;
  expect(JSON.parse(r.out[1]!).signature_valid).toBe(true);
});

it('refuses a bad --status and a lone --private-key', async () => {
  expect((await runCli(['receive', '--status', '99'])).error).toBe('--status must be an HTTP status from 200 to 599, got "99"');
  expect((await runCli(['receive', '--private-key', 'pv'])).error).toBe(
    '--private-key and --public-key go together: pass both to decrypt S2S data',
  );
  expect((await runCli(['receive', '--signature', 'svix'])).error).toBe('--signature must be plain, timestamped or standard, got "svix"');
});

/** POSTs `body` signed with `secret` in `mode`, with the headers of a delivery of the sandbox. */
async function signedPost(
  url: string,
  secret: string,
  options: { mode?: 'plain' | 'timestamped'; prefix?: string; deliveryId?: string } = {},
) {
  const body = 'transID=1&status=Test+Approved';
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = signatureHeaders({
    mode: options.mode ?? 'plain',
    secrets: [secret],
    prefix: options.prefix ?? 'Sandbox',
    id: 'evt_1',
    timestamp,
    body,
  });
  const p = `x-${(options.prefix ?? 'Sandbox').toLowerCase()}`;
  const extra = {
    [`${p}-event-id`]: 'evt_1',
    [`${p}-timestamp`]: String(timestamp),
    ...(options.deliveryId ? { [`${p}-delivery-id`]: options.deliveryId } : {}),
  };
  return post(url, body, { 'content-type': 'application/x-www-form-urlencoded', ...headers, ...extra });
}

/** The cause and message of each JSON line receive printed. */
const causes = (out: string[]) =>
  out
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .map((view) => ({ cause: view.signature_cause, message: view.signature_message }));

/** Pays with a card so the sandbox sends its payment.authorized webhook to `url` (merchant mer_sandbox). */
const pay = (sandboxUrl: string, url: string) =>
  fetch(`${sandboxUrl}/api/s2s`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(s2sBody({ ccno: '4242424242424242', webhook_url: url })),
  });

it("says other_secret when a delivery to an endpoint is checked with the merchant's secret, naming the endpoint", async () => {
  sandbox = await startTestServer();
  const r = await receive(['--json', '--count', '1', '--url', sandbox.url]);
  const created = await fetch(`${sandbox.url}/v1/webhook_endpoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${CREDS.apiKey}` },
    body: JSON.stringify({ url: `${r.url}/endpoint`, events: ['payment.authorized'] }),
  });
  const endpoint = (await created.json()) as { id: string };
  await fetch(`${sandbox.url}/_sandbox/events/trigger`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"type":"payment.authorized"}',
  });
  await r.done;
  const [view] = r.out.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
  expect(view.signature_valid).toBe(false);
  expect(view.signature_cause).toBe('other_secret');
  expect(view.signature_message).toContain(`endpoint ${endpoint.id}`);
  expect(view.signature_message).toContain("merchant mer_sandbox's webhook secret");
});

it("says other_secret, naming the merchant, when receive checks with another merchant's secret (text output)", async () => {
  sandbox = await startTestServer();
  const other = (await (
    await fetch(`${sandbox.url}/_sandbox/merchants`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  ).json()) as { id: string; webhook_secret: string };
  const r = await receive(['--count', '1', '--secret', other.webhook_secret, '--url', sandbox.url]);
  await pay(sandbox.url, `${r.url}/webhooks`);
  await r.done;
  const text = r.out.join('\n');
  expect(text).toMatch(/ {2}signature INVALID \(other_secret\)\n/);
  expect(text).toMatch(new RegExp(`\\n {4}signature: .*merchant ${other.id}'s webhook secret`));
  expect(text).not.toContain(other.webhook_secret.slice(6));
});

it('says secret_whitespace when --secret is the right secret with a trailing newline', async () => {
  sandbox = await startTestServer();
  const r = await receive(['--json', '--count', '1', '--secret', `${CREDS.secret}\n`, '--url', sandbox.url]);
  await pay(sandbox.url, `${r.url}/webhooks`);
  await r.done;
  expect(causes(r.out)).toEqual([{ cause: 'secret_whitespace', message: expect.stringMatching(/ends with a newline/) }]);
});

it('without a sandbox at --url, says which secrets a delivery can be signed with and to pass --url', async () => {
  const r = await receive(['--json', '--count', '1', '--url', 'http://127.0.0.1:9']);
  await signedPost(`${r.url}/hook`, 'whsec_other', { deliveryId: 'whd_1' });
  await r.done;
  expect(causes(r.out)).toEqual([
    {
      cause: 'unknown',
      message:
        "delivery whd_1 is not signed with --secret: a delivery to a registered webhook endpoint (we_...) is signed with that endpoint's secret, any other with its merchant's webhook secret; with --url of the sandbox that sent it (now http://127.0.0.1:9), receive says why",
    },
  ]);
});

it('says receive_flags when the signature mode or the header prefix does not match the one the webhook is signed with', async () => {
  const r = await receive(['--json', '--count', '3']);
  await signedPost(`${r.url}/a`, CREDS.secret, { mode: 'timestamped' });
  await signedPost(`${r.url}/b`, CREDS.secret, { prefix: 'Acme' });
  const body = 'transID=1';
  await post(`${r.url}/c`, body, {
    'content-type': 'application/x-www-form-urlencoded',
    ...signatureHeaders({ mode: 'standard', secrets: [CREDS.secret], prefix: 'Sandbox', id: 'evt_1', timestamp: 1, body }),
  });
  await r.done;
  expect(causes(r.out)).toEqual(
    [
      'it is signed in timestamped mode (HMAC of "<timestamp>.<body>"): pass --signature timestamped',
      'it is signed in X-Acme-Signature: pass --header-prefix Acme',
      'it is signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature headers): pass --signature standard',
    ].map((message) => ({ cause: 'receive_flags', message })),
  );
});

it("a request that is not a webhook (a browser's favicon) is one short line on stderr, answered 404 and not counted", async () => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => void out.push(t), err: (t) => void err.push(t) };
  const done = buildProgram(io).parseAsync(['node', 'sandbox', 'receive', '--port', '0', '--count', '1', '--json']);
  const banner = await waitFor(() => err.find((line) => line.startsWith('receiving webhooks at')), 'the receiver');
  const url = /at (http:\/\/\S+?)\/ /.exec(banner)![1]!;
  const favicon = await fetch(`${url}/favicon.ico`);
  expect(favicon.status).toBe(404);
  const unsigned = await post(`${url}/hook`, 'hello', { 'content-type': 'text/plain' });
  expect(unsigned.status).toBe(200);
  await signedPost(`${url}/hook`, CREDS.secret);
  await done;
  expect(err.slice(1)).toEqual([
    expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} GET \/favicon\.ico: not a webhook \(only a POST is\), answered 404$/),
    expect.stringMatching(
      /^\d\d:\d\d:\d\d\.\d{3} POST \/hook: not a webhook \(no X-Sandbox-Signature, X-Sandbox-Event-Id or webhook-id header\), answered 200$/,
    ),
  ]);
  // Only the webhook is on stdout, and it counted as the one --count waited for.
  expect(out.map((line) => JSON.parse(line))).toMatchObject([
    { path: '/hook', signature_valid: true, signature_cause: null, signature_message: null },
  ]);
});

it('a body over 1 MiB, declared or chunked, is answered 413 without being kept, and the receiver goes on', async () => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => void out.push(t), err: (t) => void err.push(t) };
  const done = buildProgram(io).parseAsync(['node', 'sandbox', 'receive', '--port', '0', '--count', '1', '--json']);
  const banner = await waitFor(() => err.find((line) => line.startsWith('receiving webhooks at')), 'the receiver');
  const url = new URL(/at (http:\/\/\S+?)\/ /.exec(banner)![1]!);
  const headers = { 'content-type': 'application/json', 'x-sandbox-signature': 'sha256=00', 'x-sandbox-event-id': 'evt_big' };
  // Declared: Content-Length says 2 MiB.
  const declared = await post(`${url.href}big`, 'x'.repeat(2 * 1024 * 1024), headers);
  expect(declared.status).toBe(413);
  expect(await declared.text()).toBe('body too large: sandbox receive takes bodies of at most 1 MiB (1048576 bytes)');
  // Chunked: no length; 64 KiB pieces until the receiver answers, as an endless stream would be sent.
  const chunked = await new Promise<{ status: number; sent: number }>((resolve, reject) => {
    let sent = 0;
    let status: number | undefined;
    const request = http.request(
      { host: url.hostname, port: url.port, path: '/chunked', method: 'POST', headers: { ...headers, 'transfer-encoding': 'chunked' } },
      (res) => {
        status = res.statusCode;
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, sent }));
      },
    );
    // The receiver closes the connection once it has answered: a piece written after that fails
    // (EPIPE, ECONNRESET), which is this sender's problem once the answer is in.
    request.on('error', (err) => (status === undefined ? reject(err) : resolve({ status, sent })));
    const piece = Buffer.alloc(64 * 1024, 'y');
    const more = () => {
      // Stops once answered: an endless sender is what the bound is for.
      while (!request.destroyed && sent < 64 * 1024 * 1024) {
        sent += piece.length;
        if (!request.write(piece)) return void request.once('drain', more);
      }
      request.end();
    };
    more();
  });
  expect(chunked.status).toBe(413);
  expect(chunked.sent).toBeLessThan(64 * 1024 * 1024);
  // Still receiving: the next webhook is taken and printed as usual.
  await signedPost(`${url.href}hook`, CREDS.secret);
  await done;
  expect(err.slice(1)).toEqual([
    expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} POST \/big: body over 1 MiB \(1048576 bytes\), answered 413 and not read$/),
    expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} POST \/chunked: body over 1 MiB \(1048576 bytes\), answered 413 and not read$/),
  ]);
  expect(out.map((line) => JSON.parse(line))).toMatchObject([{ path: '/hook', signature_valid: true }]);
});

it('--help says how large a body it takes', async () => {
  const run = await runCli(['receive', '--help']);
  expect(run.out).toContain('Bodies over 1 MiB (1048576 bytes) are answered 413 and not read.');
});

it('--https cuts off a client that connects and never finishes the TLS handshake, as the sandbox does (Node held it 120 s)', async () => {
  // The built CLI in a folder of its own: --https makes its local CA under .sandbox/tls/ there.
  const dir = mkdtempSync(join(tmpdir(), 'paysandbox-receive-https-'));
  const child = spawn(process.execPath, [BIN, 'receive', '--https', '--port', '0'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let socket: Socket | undefined;
  try {
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const port = await waitFor(
      () => /receiving webhooks at https:\/\/127\.0\.0\.1:(\d+)\//.exec(stderr)?.[1],
      'the https receiver',
      20_000,
    );
    socket = connect(Number(port), '127.0.0.1');
    let closed = false;
    socket.on('close', () => (closed = true));
    socket.on('error', () => {});
    // The limit is 10 s; the deadline only bounds a failure.
    await waitFor(() => closed || undefined, 'the receiver to close the silent connection', 40_000);
  } finally {
    socket?.destroy();
    child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
});
