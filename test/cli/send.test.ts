// `sandbox send`: a body of your own POSTed once to a handler, signed as the delivery worker signs,
// checked by the stock verifiers (octokit's for plain, standardwebhooks for standard, the
// documented HMAC of "<timestamp>.<body>" for timestamped); the answer printed, exit 0 only on 2xx.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { standardSecret, verifySignature } from '../../src/signatures/signing.js';
import { runCli } from '../helpers/cli-harness.js';
import { CREDS, s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

interface Got {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let sandbox: RunningServer;
let receiver: http.Server;
let to: string;
let dir: string;
const got: Got[] = [];

beforeAll(async () => {
  sandbox = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'sandbox-send-'));
  // A handler that records each request and answers 401 on /refuse, 200 elsewhere.
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const refuse = req.url === '/refuse';
      res.writeHead(refuse ? 401 : 200, { 'content-type': 'text/plain', 'x-handler': 'test' }).end(refuse ? 'bad signature' : 'ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  to = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sandbox.close();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const ENVELOPE = JSON.stringify({
  event: 'payment.captured',
  id: 'evt_fixture_1',
  data: { payment_id: 'pay_1', amount: 1990, currency: 'EUR' },
});

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const send = (args: string[], stdin?: string) => runCli(['send', ...args, '--url', sandbox.url], stdin);
const lastAt = (path: string) => got.filter((g) => g.path === path).at(-1)!;
const header = (g: Got, name: string) => String(g.headers[name]);

it('plain: signs with --secret as the worker does, verified by octokit, and prints the answer', async () => {
  const run = await send(['--to', `${to}/plain`, '--body', file('envelope.json', ENVELOPE), '--secret', 'whsec_fixture', '--json']);
  expect(run.error).toBeUndefined();
  expect(run.exitCode).toBe(0);
  const answer = JSON.parse(run.out);
  expect(answer).toMatchObject({ to: `${to}/plain`, status: 200, body: 'ok', error: null, headers: { 'x-handler': 'test' } });
  const g = lastAt('/plain');
  expect(g.body).toBe(ENVELOPE);
  expect(answer.request.headers['x-sandbox-signature']).toBe(header(g, 'x-sandbox-signature'));
  expect(await octokitVerify('whsec_fixture', g.body, header(g, 'x-sandbox-signature'))).toBe(true);
  expect(await octokitVerify('whsec_other', g.body, header(g, 'x-sandbox-signature'))).toBe(false);
  expect(g.headers).toMatchObject({
    'content-type': 'application/json',
    'x-sandbox-event-type': 'payment.captured',
    'x-sandbox-event-id': 'evt_fixture_1',
    'x-sandbox-attempt': '1',
    'x-sandbox-delivery-id': expect.stringMatching(/^whd_/),
    'x-sandbox-timestamp': expect.stringMatching(/^\d{10}$/),
  });
  expect(run.out).not.toContain('whsec_fixture');
});

it('--secret-file: the one line ending a file ends with (LF or CRLF) is not part of the secret; a second one is', async () => {
  for (const [name, text] of [
    ['secret-lf.txt', 'whsec_fixture\n'],
    ['secret-crlf.txt', 'whsec_fixture\r\n'],
  ] as const) {
    const run = await send(['--to', `${to}/${name}`, '--body', '-', '--secret-file', file(name, text)], ENVELOPE);
    expect(run.exitCode, run.error).toBe(0);
    const g = lastAt(`/${name}`);
    expect(await octokitVerify('whsec_fixture', g.body, header(g, 'x-sandbox-signature')), name).toBe(true);
  }
  // Only one line ending goes (the flag's help says so): a second one stays part of the secret.
  await send(['--to', `${to}/two-lines`, '--body', '-', '--secret-file', file('two-lines.txt', 'whsec_fixture\n\n')], ENVELOPE);
  const two = lastAt('/two-lines');
  expect(await octokitVerify('whsec_fixture', two.body, header(two, 'x-sandbox-signature'))).toBe(false);
  expect(await octokitVerify('whsec_fixture\n', two.body, header(two, 'x-sandbox-signature'))).toBe(true);
});

it('timestamped: the sandbox signs with --merchant\'s secret, the documented HMAC of "<timestamp>.<body>", with the worker\'s headers', async () => {
  // A real delivery to compare the header names with.
  await fetch(`${sandbox.url}/api/s2s`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(s2sBody({ ccno: '4242424242424242', webhook_url: `${to}/real` })),
  });
  const real = await waitFor(() => got.find((g) => g.path === '/real'), 'the real delivery');
  const body = 'transID=123&status=Test+Approved&order_status=1';
  const run = await send(
    ['--to', `${to}/ts`, '--merchant', 'mer_sandbox', '--signature', 'timestamped', '--event-type', 'payment.authorized'],
    body,
  );
  expect(run.error).toBeUndefined();
  expect(run.out).toMatch(/^HTTP 200 \(\d+ms\)\nok$/);
  const g = lastAt('/ts');
  expect(g.body).toBe(body);
  const expected = `sha256=${createHmac('sha256', CREDS.secret)
    .update(`${header(g, 'x-sandbox-timestamp')}.${body}`)
    .digest('hex')}`;
  expect(header(g, 'x-sandbox-signature')).toBe(expected);
  expect(g.headers['content-type']).toBe('application/x-www-form-urlencoded');
  expect(Object.keys(g.headers).sort()).toEqual(Object.keys(real.headers).sort());
});

it("standard: signs with --endpoint's secret in the endpoint's mode, verified by standardwebhooks; body from stdin with --body -", async () => {
  const created = await fetch(`${sandbox.url}/v1/webhook_endpoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${CREDS.apiKey}` },
    body: JSON.stringify({ url: `${to}/never`, events: ['payment.captured'], signature: 'standard' }),
  });
  const endpoint = (await created.json()) as { id: string; secret: string };
  const run = await send(['--to', `${to}/std`, '--endpoint', endpoint.id, '--body', '-'], ENVELOPE);
  expect(run.exitCode).toBe(0);
  const g = lastAt('/std');
  expect(g.headers['webhook-id']).toBe('evt_fixture_1');
  const headers = Object.fromEntries(Object.entries(g.headers).map(([k, v]) => [k, String(v)]));
  expect(new Webhook(endpoint.secret).verify(g.body, headers)).toEqual(JSON.parse(ENVELOPE));
  // --signature standard with --secret signs the same way, here.
  await send(['--to', `${to}/std2`, '--secret', endpoint.secret, '--signature', 'standard'], ENVELOPE);
  const local = lastAt('/std2');
  const localHeaders = Object.fromEntries(Object.entries(local.headers).map(([k, v]) => [k, String(v)]));
  expect(new Webhook(endpoint.secret).verify(local.body, localHeaders)).toEqual(JSON.parse(ENVELOPE));
});

it('a delivered JSON body sent again is sent byte for byte, in every mode: a handler that re-serialises it cannot verify it', async () => {
  // A /v1/ payment's webhook, as the sandbox delivers it: indented, with a final newline.
  await fetch(`${sandbox.url}/v1/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${CREDS.apiKey}` },
    body: JSON.stringify({ amount: 1990, currency: 'EUR', token: 'tok_visa', webhook_url: `${to}/captured` }),
  });
  const captured = await waitFor(() => got.find((g) => g.path === '/captured'), 'the delivered payment webhook');
  const reserialised = JSON.stringify(JSON.parse(captured.body));
  expect(captured.body).not.toBe(reserialised);
  const body = file('captured.json', captured.body);
  for (const mode of ['plain', 'timestamped', 'standard'] as const) {
    const run = await send(['--to', `${to}/again-${mode}`, '--body', body, '--merchant', 'mer_sandbox', '--signature', mode]);
    expect(run.exitCode, run.error).toBe(0);
    const g = lastAt(`/again-${mode}`);
    expect(g.body).toBe(captured.body);
    const headers = Object.fromEntries(Object.entries(g.headers).map(([k, v]) => [k, String(v)]));
    const verifies = (text: string) => {
      if (mode !== 'standard')
        return verifySignature(headers['x-sandbox-signature'], CREDS.secret, text, mode, Number(headers['x-sandbox-timestamp']));
      try {
        new Webhook(standardSecret(CREDS.secret)).verify(text, headers);
        return true;
      } catch {
        return false;
      }
    };
    expect({ mode, raw: verifies(g.body), reserialised: verifies(reserialised) }).toEqual({ mode, raw: true, reserialised: false });
  }
});

it('exits 1 on an answer that is not 2xx, printing it; --verbose shows the headers both ways', async () => {
  const run = await send(['--to', `${to}/refuse`, '--secret', 'whsec_fixture', '--verbose'], ENVELOPE);
  expect(run.exitCode).toBe(1);
  expect(run.error).toBeUndefined();
  expect(run.out).toMatch(new RegExp(`^> POST ${to}/refuse\\n`));
  expect(run.out).toMatch(/\n> x-sandbox-signature: sha256=[0-9a-f]{64}\n/);
  expect(run.out).toMatch(/\n< HTTP 401 \(\d+ms\)\n[\s\S]*< x-handler: test\n[\s\S]*bad signature$/);
  const refused = await send(['--to', 'http://127.0.0.1:9/hook', '--secret', 'whsec_fixture', '--json'], ENVELOPE);
  expect(refused.exitCode).toBe(1);
  expect(JSON.parse(refused.out)).toMatchObject({ status: null, error: { kind: 'refused' } });
});

it('refuses bad flags before sending, naming the flag', async () => {
  const before = got.length;
  const cases: Array<[string[], string | RegExp]> = [
    [['--secret', 's'], /^--to is missing/],
    [['--to', 'ftp://x/', '--secret', 's'], '--to must be an http(s) URL such as http://127.0.0.1:3000/webhooks, got "ftp://x/"'],
    [
      ['--to', `${sandbox.url}/_sandbox/reset`, '--secret', 's'],
      /^--to points at the sandbox's own control API \(\/_sandbox on 127\.0\.0\.1:\d+\), which webhooks never reach/,
    ],
    [['--to', to], /^no secret to sign with: give --secret/],
    [
      ['--to', to, '--secret', 's', '--merchant', 'mer_sandbox'],
      '--secret and --merchant do not go together: give one of them, whose secret signs the body',
    ],
    [['--to', to, '--secret', 's', '--signature', 'svix'], '--signature must be plain, timestamped or standard, got "svix"'],
    [['--to', to, '--endpoint', 'we_1', '--header-prefix', 'Acme'], /^--header-prefix goes with --secret/],
    [['--to', to, '--secret', 's', '--event-type', 'a\nb'], /^--event-type goes into a header/],
    [['--to', to, '--merchant', 'mer_nothere', '--event-type', 'payment.captured'], /no merchant mer_nothere.*\(404 resource_missing\)$/],
    [['--to', to, '--secret', 's', '--timeout', 'soon'], '--timeout must be a duration like 10s or 1m, got "soon"'],
    // Past Node's timer limit a wait ends at once; a receiver answers in seconds.
    [['--to', to, '--secret', 's', '--timeout', '30d'], '--timeout must be at most 10m, got "30d"; give a duration like 10s or 1m'],
    [['--to', to, '--secret', 's', '--timeout', '10m1s'], '--timeout must be at most 10m, got "10m1s"; give a duration like 10s or 1m'],
  ];
  for (const [args, message] of cases) {
    const run = await send(args, ENVELOPE);
    expect(run.exitCode, args.join(' ')).toBe(1);
    expect(run.error).toMatch(typeof message === 'string' ? new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : message);
  }
  const noType = await send(['--to', to, '--secret', 's'], 'transID=1');
  expect(noType.error).toBe('--event-type is missing: the body names no "event" of its own; give --event-type, such as payment.captured');
  expect(got.length).toBe(before);
});
