// API faults over a real socket: what a merchant's HTTP client sees for reset, timeout and
// lost-answer (no answer at all), what the database holds afterwards, and the request log's
// marker in both formats. A node:http client, so the error is the one a merchant's code meets.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { startLoggedServer } from '../helpers/logged-server.js';
import { startCliSandbox, type CliSandbox } from '../helpers/cli-sandbox.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { api } from '../helpers/http.js';
import { AUTH, paymentBody } from '../helpers/payments-api.js';
import { waitFor } from '../helpers/wait-for.js';

let sandbox: RunningServer | undefined;
let lines: string[] = [];
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(format: 'pretty' | 'json' = 'pretty', faultTimeout = '300ms') {
  ({ sandbox, lines } = await startLoggedServer(format, { faultTimeout }));
  return sandbox;
}

/** What the client got: an answer, or the error its connection ended with. */
type Outcome = { status: number; body: string } | { error: string };

/** POST /v1/payments with node:http; `timeoutMs` is the client giving up. */
function create(url: string, headers: Record<string, string>, timeoutMs = 10_000): Promise<Outcome> {
  return new Promise((resolve) => {
    const body = JSON.stringify(paymentBody());
    const req = http.request(`${url}/v1/payments`, {
      method: 'POST',
      agent: false,
      headers: { ...AUTH, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
    });
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('client timeout'), { code: 'CLIENT_TIMEOUT' })));
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end(body);
  });
}

const payments = async (url: string) => (await api(url).get('/v1/payments', AUTH)).json.data as Array<{ id: string }>;

describe('API faults over a socket', () => {
  it('reset: the connection is reset with no answer, nothing is created, and the log marks it', async () => {
    const { url } = await start();
    expect(await create(url, { 'X-Sandbox-Fault': 'reset' })).toEqual({ error: 'ECONNRESET' });
    expect(await payments(url)).toEqual([]);
    const line = await waitFor(() => lines.find((l) => l.includes('/v1/payments') && l.includes('fault')), 'the log line');
    expect(line).toMatch(/POST\s+\/v1\/payments .*444.*\[fault: reset \(connection reset, no answer\)\]/);
  });

  it('timeout: a client that gives up first sees its own timeout, and nothing is created', async () => {
    // The sandbox holds the answer far longer than the client waits, so the client's own timeout
    // ends the request however slowly a busy machine runs (a reset from the sandbox would be ECONNRESET).
    const { url } = await start('pretty', '60s');
    expect(await create(url, { 'X-Sandbox-Fault': 'timeout' }, 100)).toEqual({ error: 'CLIENT_TIMEOUT' });
    expect(await payments(url)).toEqual([]);
  });

  it('timeout: a patient client sees the connection close without an answer after --fault-timeout', async () => {
    const { url } = await start();
    const started = performance.now();
    expect(await create(url, { 'X-Sandbox-Fault': 'timeout' })).toEqual({ error: 'ECONNRESET' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(await payments(url)).toEqual([]);
  });

  it('lost-answer: no answer, but the payment exists, and the keyed retry replays the committed answer', async () => {
    const { url } = await start('json');
    const key = { 'Idempotency-Key': 'order-2002' };
    expect(await create(url, { 'X-Sandbox-Fault': 'lost-answer', ...key })).toEqual({ error: 'ECONNRESET' });
    const [payment] = await payments(url);
    expect(payment).toBeDefined();
    const retry = await api(url).post('/v1/payments', paymentBody(), { ...AUTH, ...key });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.json.id).toBe(payment!.id);
    expect(await payments(url)).toHaveLength(1);
    const entry = JSON.parse(await waitFor(() => lines.find((l) => l.includes('"fault":"lost-answer')), 'the log line'));
    expect(entry).toMatchObject({ type: 'request', path: '/v1/payments', fault: 'lost-answer (200 committed, not sent)' });
    expect(lines.filter((l) => l.includes('"type":"request"')).map((l) => JSON.parse(l).fault)).toContain(null);
  });

  it('status=503 over the socket: the standard error body and Retry-After', async () => {
    const { url } = await start();
    const res = await api(url).post('/api/s2s', s2sBody(), { 'X-Sandbox-Fault': 'status=503' });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.json.error.code).toBe('injected_unavailable');
  });
});

describe('route patterns', () => {
  let child: CliSandbox | undefined;
  afterEach(async () => {
    await child?.kill();
    child = undefined;
  });

  // A pattern of eight * was a regular expression of eight .*: a long path that almost matched it
  // took the sandbox's one thread for hours (four * and 613 characters: 5.8 s), every other request
  // waited and SIGTERM went unheard. A separate process, so the old code fails this by the client
  // giving up instead of freezing the test runner.
  it('a rule of many * and a request with a long path that almost matches leave the sandbox answering at once', async () => {
    child = await startCliSandbox(['--faults', 'route=/v1/*a*a*a*a*a*a*a*b:status=503;route=/v1/payments/*/*/*/*/capture:status=503']);
    const client = api(child.url);
    const deadline = AbortSignal.timeout(10_000);
    const long = await fetch(`${child.url}/v1/${'a'.repeat(3000)}`, { headers: AUTH, signal: deadline });
    expect(long.status).toBe(404);
    const almost = await fetch(`${child.url}/v1/payments/${'x/'.repeat(300)}captur`, { headers: AUTH, signal: deadline });
    expect(almost.status).toBe(404);
    // The patterns still match what they name.
    expect((await client.get(`/v1/${'a'.repeat(50)}b`, AUTH)).status).toBe(503);
    expect((await client.post('/v1/payments/pay_1/a/b/c/capture', {}, AUTH)).status).toBe(503);
    expect((await client.get('/v1/payments', AUTH)).status).toBe(200);
  });
});
