// Bad input through the HTTP front thread (src/server/front/), as `sandbox start` serves it: the
// thread reads the body and, for the two busiest creates, parses and validates it before the main
// thread sees it. What that could break: an answer that differs from the one the app gives on its
// own (in-process, where the main thread reads and validates everything), a 500 or a dead thread
// for a body the thread's parser or schema chokes on (5 000 and 200 000 levels deep, bytes that are
// not UTF-8, lone surrogates), and the body limit's 413 (a chunked body must get the whole answer,
// then EOF, not a reset). Run from the built package (dist/: `npm run build` first).
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type * as Library from '../../src/index.js';
import { AUTH, paymentBody } from '../helpers/payments-api.js';
import { s2sBody } from '../helpers/test-sandbox.js';

const DIST = new URL('../../dist/index.js', import.meta.url).href;
type Running = Awaited<ReturnType<typeof Library.startServer>>;

let sandbox: Running;
const errors: string[] = [];
beforeAll(async () => {
  const { loadConfig, startServer } = (await import(DIST)) as typeof Library;
  const logger = { request() {}, webhook() {}, info() {}, error: (line: string) => void errors.push(line) };
  sandbox = await startServer(loadConfig({ port: 0, db: ':memory:', quiet: true, retry: 'none' }, {}), { logger, front: true });
  expect(sandbox.front, 'HTTP runs on the front thread').toBeDefined();
});
afterAll(() => sandbox?.close());

/** A body nested `levels` deep in the metadata, written as text (JSON.stringify cannot go that deep). */
function deepBody(base: Record<string, unknown>, levels: number): string {
  return JSON.stringify({ ...base, metadata: { order: 'DEEP' } }).replace('"DEEP"', `${'['.repeat(levels)}1${']'.repeat(levels)}`);
}

const V1 = { ...AUTH, 'content-type': 'application/json' };
const S2S = { 'content-type': 'application/json' };
const notUtf8 = (text: string) =>
  Buffer.concat([Buffer.from(text.slice(0, 20)), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(text.slice(20))]);

/** [what, path, headers, body] of requests each refused with a 4xx. */
const BAD: Array<[string, string, Record<string, string>, string | Buffer]> = [
  ['malformed JSON', '/v1/payments', V1, '{"amount": 10'],
  ['an array', '/v1/payments', V1, '[1, 2]'],
  ['an empty body', '/v1/payments', V1, ''],
  ['text/plain', '/v1/payments', { ...AUTH, 'content-type': 'text/plain' }, JSON.stringify(paymentBody())],
  ['a negative amount', '/v1/payments', V1, JSON.stringify(paymentBody({ amount: -1 }))],
  ['an unknown field', '/v1/payments', V1, JSON.stringify(paymentBody({ unknown_field: 1 }))],
  ['no key', '/v1/payments', { 'content-type': 'application/json' }, JSON.stringify(paymentBody())],
  ['5 000 levels deep', '/v1/payments', V1, deepBody(paymentBody(), 5000)],
  ['200 000 levels deep', '/v1/payments', V1, deepBody(paymentBody(), 200_000)],
  ['a lone surrogate', '/v1/payments', V1, JSON.stringify(paymentBody({ reference: 'x' })).replace('"x"', '"\\ud800"')],
  ['bytes that are not UTF-8', '/v1/payments', V1, notUtf8(JSON.stringify(paymentBody()))],
  ['malformed JSON', '/api/s2s', S2S, '{"terNO": '],
  ['a bad currency', '/api/s2s', S2S, JSON.stringify(s2sBody({ reference: 'bad-1', bill_currency: 'XXXX' }))],
  ['an ftp webhook_url', '/api/s2s', S2S, JSON.stringify(s2sBody({ reference: 'bad-2', webhook_url: 'ftp://x' }))],
  ['5 000 levels deep', '/api/s2s', S2S, deepBody(s2sBody({ reference: 'bad-3' }), 5000)],
  ['200 000 levels deep', '/api/s2s', S2S, deepBody(s2sBody({ reference: 'bad-4' }), 200_000)],
  ['bytes that are not UTF-8', '/api/s2s', S2S, notUtf8(JSON.stringify(s2sBody({ reference: 'bad-5' })))],
  ['5 000 levels deep', '/v1/refunds', V1, deepBody({ payment_id: 'pay_x', amount: 1 }, 5000)],
  ['an unknown route', '/v1/nothing-here', V1, '{}'],
];

/** An answer's status and body, request ids made comparable. */
async function shape(res: Response): Promise<string> {
  return `${res.status} ${(await res.text()).replace(/req_[A-Za-z0-9]+/g, 'req')}`;
}

it.each(BAD)('%s to %s: the 4xx the app gives in-process, with the message naming what to fix', async (_what, path, headers, body) => {
  const through = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers, body });
  const answer = await shape(through);
  expect(Number(answer.slice(0, 3))).toBeGreaterThanOrEqual(400);
  expect(Number(answer.slice(0, 3))).toBeLessThan(500);
  expect(JSON.parse(answer.slice(4)).error.message).toMatch(/\w+ \w+/);
  // The same request straight into the app on the main thread, without the thread's reading.
  const inProcess = await sandbox.app.request(path, { method: 'POST', headers, body });
  expect(answer).toBe(await shape(inProcess));
});

it('after all of them: nothing was stored, no error was logged, the thread is the first one and a valid create answers 200', async () => {
  const listed = await fetch(`${sandbox.url}/v1/payments`, { headers: AUTH });
  expect(((await listed.json()) as { data: unknown[] }).data).toEqual([]);
  expect(errors).toEqual([]);
  const ok = await fetch(`${sandbox.url}/v1/payments`, { method: 'POST', headers: V1, body: JSON.stringify(paymentBody()) });
  expect(ok.status).toBe(200);
});

it('a Content-Length over 1 MiB: 413 body_too_large with a request id, the body left unread', async () => {
  const res = await fetch(`${sandbox.url}/api/s2s`, { method: 'POST', headers: S2S, body: 'x'.repeat(1024 * 1024 + 1) });
  expect(res.status).toBe(413);
  expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe('body_too_large');
});

/** Writes `parts` to a raw socket left open; resolves with what came back and any socket error once the server closes it. */
function rawExchange(url: string, parts: string[]): Promise<{ text: string; error: string | null }> {
  return new Promise((resolve) => {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    let text = '';
    let error: string | null = null;
    socket.on('connect', () => {
      for (const part of parts) socket.write(part);
    });
    socket.on('data', (data: Buffer) => {
      text += data.toString('latin1');
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message;
    });
    socket.on('close', () => resolve({ text, error }));
  });
}

it('a chunked body over 1 MiB: the whole 413 with Connection: close, then EOF, no reset', async () => {
  const head = 'POST /api/s2s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
  const piece = 'x'.repeat(64 * 1024);
  const chunk = `${piece.length.toString(16)}\r\n${piece}\r\n`;
  const res = await rawExchange(sandbox.url, [head, ...Array.from({ length: 24 }, () => chunk), '0\r\n\r\n']);
  expect(res.error).toBeNull();
  const [answerHead = '', body = ''] = res.text.split('\r\n\r\n');
  expect(answerHead).toMatch(/^HTTP\/1\.1 413 /);
  expect(answerHead).toMatch(/^connection: close$/im);
  expect(Buffer.byteLength(body)).toBe(Number(/^content-length: (\d+)$/im.exec(answerHead)?.[1]));
  expect(JSON.parse(body).error.code).toBe('body_too_large');
});
