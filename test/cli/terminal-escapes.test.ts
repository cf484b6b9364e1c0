// An attacker who can reach a developer's terminal through the network: a forged webhook sent to
// `sandbox receive`, a handler's answer printed by `sandbox send` and kept in the attempt log that
// `sandbox webhooks show` prints. Each carries control characters a terminal obeys (CR, ESC [2K,
// an 8-bit CSI, a bidirectional override) to repaint "signature INVALID" as "signature valid".
// What the commands print must hold none of them (the CLI's own colours are off in tests, so any
// control character in the output came from the network), and must show them as escapes instead.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import type { CliIo } from '../../src/cli/io.js';
import type { RunningServer } from '../../src/server/start-server.js';
import { runCli } from '../helpers/cli-harness.js';
import { CREDS, startTestServer } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

/** Every character a terminal acts on, but the line feeds that separate lines. */
const TERMINAL_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** What a forger wants the developer to read: the line redrawn from its start, cleared, saying all is well. */
const REPAINT = '\r\u001b[2Kpayment.captured evt_1 /hook  signature valid\u009b8m\u202e';

let sandbox: RunningServer;
let handler: http.Server;
let handlerUrl: string;
let dir: string;

beforeAll(async () => {
  sandbox = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'terminal-escapes-'));
  // A hostile handler: its answer's body and a header try to repaint the developer's terminal.
  handler = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(401, { 'x-note': 'a\u009b2Kb' }).end(`refused${REPAINT}`));
  });
  await new Promise<void>((resolve) => handler.listen(0, '127.0.0.1', resolve));
  handlerUrl = `http://127.0.0.1:${(handler.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sandbox.close();
  handler.closeAllConnections();
  await new Promise((resolve) => handler.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

async function receive(args: string[]) {
  const out: string[] = [];
  const io: CliIo = { out: (t) => void out.push(t), err: (t) => void out.push(t) };
  const done = buildProgram(io).parseAsync(['node', 'sandbox', 'receive', '--port', '0', '--url', sandbox.url, ...args]);
  const banner = await waitFor(() => out.find((line) => line.startsWith('receiving webhooks at')), 'the receiver');
  return { out, done, port: Number(/127\.0\.0\.1:(\d+)\//.exec(banner)![1]) };
}

/** A raw HTTP/1.1 POST, so header bytes node's fetch would refuse to send reach the receiver as they are. */
function rawPost(port: number, path: string, headers: Buffer, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      const head = Buffer.from(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n`,
      );
      socket.end(Buffer.concat([head, headers, Buffer.from(`\r\n${body}`)]));
    });
    socket.on('data', () => {});
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

it('sandbox receive prints a forged webhook with its control characters escaped, header bytes and body alike', async () => {
  const r = await receive(['--count', '1']);
  const body = JSON.stringify({ event: 'payment.captured', id: 'evt_1', data: { note: REPAINT } });
  // 0x9b is an 8-bit CSI; node:http takes such bytes in a header value (obs-text) as latin1.
  const headers = Buffer.concat([
    Buffer.from('Content-Type: application/json\r\nX-Sandbox-Signature: sha256=00\r\nX-Sandbox-Event-Type: payment.captured'),
    Buffer.from([0x9b]),
    Buffer.from('2K\r\n'),
  ]);
  await rawPost(r.port, '/hook', headers, body);
  await r.done;
  const printed = r.out.slice(1).join('\n');
  expect(printed).toContain('signature INVALID');
  expect(printed).not.toMatch(TERMINAL_CONTROLS);
  expect(printed).toContain('payment.captured\\x9b2K');
  expect(printed).toContain('\\r\\x1b[2Kpayment.captured evt_1 /hook  signature valid\\x9b8m\\u202e');
});

it('sandbox receive --json keeps the exact value of each field, with the controls JSON leaves raw written as \\u escapes', async () => {
  const r = await receive(['--json', '--count', '1']);
  const body = JSON.stringify({ event: 'payment.captured', id: 'evt_1', data: { note: REPAINT } });
  await fetch(`http://127.0.0.1:${r.port}/hook`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-sandbox-signature': 'sha256=00', 'x-sandbox-event-id': 'evt_1' },
  });
  await r.done;
  const line = r.out[1]!;
  expect(line).not.toMatch(TERMINAL_CONTROLS);
  expect(JSON.parse(line).fields.note).toBe(REPAINT);
});

it("sandbox send prints the handler's answer, body and headers, with its control characters escaped", async () => {
  const envelope = join(dir, 'envelope.json');
  writeFileSync(envelope, JSON.stringify({ event: 'payment.captured', id: 'evt_1', data: {} }));
  const run = await runCli(['send', '--to', `${handlerUrl}/hook`, '--body', envelope, '--secret', CREDS.secret, '--verbose']);
  expect(run.exitCode).toBe(1);
  expect(run.out).toMatch(/^< HTTP 401/m);
  expect(run.out).not.toMatch(TERMINAL_CONTROLS);
  expect(run.out).toContain('< x-note: a\\x9b2Kb');
  expect(run.out).toContain('refused\\r\\x1b[2Kpayment.captured evt_1 /hook  signature valid\\x9b8m\\u202e');
  const json = await runCli(['send', '--to', `${handlerUrl}/hook`, '--body', envelope, '--secret', CREDS.secret, '--json']);
  expect(json.out).not.toMatch(TERMINAL_CONTROLS);
  expect(JSON.parse(json.out).body).toBe(`refused${REPAINT}`);
});

it("sandbox webhooks show prints the handler's answer from the attempt log with its control characters escaped", async () => {
  const paid = await fetch(`${sandbox.url}/v1/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${CREDS.apiKey}` },
    body: JSON.stringify({
      amount: 1000,
      currency: 'EUR',
      token: 'tok_visa',
      webhook_url: `${handlerUrl}/hook`,
      metadata: { note: REPAINT },
    }),
  });
  expect(paid.status).toBeLessThan(300);
  const id = await waitFor(async () => {
    const list = (await (await fetch(`${sandbox.url}/_sandbox/deliveries?url=${encodeURIComponent(`${handlerUrl}/hook`)}`)).json()) as {
      data: Array<{ id: string; attempts: number }>;
    };
    return list.data.find((d) => d.attempts > 0)?.id;
  }, 'an attempt at the hostile handler');
  const run = await runCli(['webhooks', 'show', id, '--url', sandbox.url]);
  expect(run.error).toBeUndefined();
  expect(run.out).toContain('401');
  expect(run.out).not.toMatch(TERMINAL_CONTROLS);
  const json = await runCli(['webhooks', 'show', id, '--url', sandbox.url, '--json']);
  expect(json.out).not.toMatch(TERMINAL_CONTROLS);
  expect(JSON.parse(json.out).attempt_log[0].response_excerpt).toBe(`refused${REPAINT}`);
});

it('sandbox merchants list prints a name another client stored with its control characters escaped, --json keeping it exact', async () => {
  // Anyone who reaches the control API can name a merchant; the name is then printed on every developer's terminal.
  const name = `shop${REPAINT}`;
  const created = await fetch(`${sandbox.url}/_sandbox/merchants`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  expect(created.status).toBe(201);
  const table = await runCli(['merchants', 'list', '--url', sandbox.url]);
  expect(table.error).toBeUndefined();
  expect(table.out).toContain('shop\\r\\x1b[2K');
  expect(table.out).not.toMatch(TERMINAL_CONTROLS);
  const json = await runCli(['merchants', 'list', '--url', sandbox.url, '--json']);
  expect(json.out).not.toMatch(TERMINAL_CONTROLS);
  expect((JSON.parse(json.out) as Array<{ name: string }>).map((m) => m.name)).toContain(name);
});

it('sandbox requests and requests expect print what a request carried with its control characters escaped, --json keeping it exact', async () => {
  // A body JSON.stringify leaves the 8-bit CSI and the bidi override raw in: the journal keeps it, and the near misses quote it.
  const description = `order${REPAINT}`;
  const paid = await fetch(`${sandbox.url}/v1/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${CREDS.apiKey}` },
    body: JSON.stringify({ amount: 1050, currency: 'EUR', token: 'tok_visa', description }),
  });
  expect(paid.ok).toBe(true);
  const listed = await runCli(['requests', '--path', '/v1/payments', '--json', '--url', sandbox.url]);
  expect(listed.out).not.toMatch(TERMINAL_CONTROLS);
  const entries = JSON.parse(listed.out) as Array<{ request: { body: string | null } }>;
  // The JSON text as sent: its CR and ESC written as \r and \u001b, the C1 control and the override raw.
  expect(entries.some((e) => e.request.body?.includes('\u009b8m\u202e'))).toBe(true);
  const missed = await runCli(['requests', 'expect', '--path', '/v1/payments', '--body', '{"description":"x"}', '--url', sandbox.url]);
  expect(missed.out).toContain('order');
  expect(missed.out).not.toMatch(TERMINAL_CONTROLS);
});
