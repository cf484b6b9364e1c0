// The 1 MiB body limit over a real socket (Content-Length and chunked bodies) and in-process,
// and the X-Request-Id header on every answer. The limit checks the header instead of building
// a stream per request (a hot-path fix found by the bench), so each way in is proven here.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { createTestSandbox, s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { startLoggedServer } from '../helpers/logged-server.js';
import { waitFor } from '../helpers/wait-for.js';
import type { Json } from '../helpers/json.js';

const TOO_BIG = 'x'.repeat(1024 * 1024 + 1);

/** POSTs `body` in the given chunks; with `chunked` no Content-Length is sent. */
function post(
  url: string,
  path: string,
  chunks: string[],
  chunked: boolean,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; json: Json }> {
  return new Promise((resolve, reject) => {
    const length = chunks.reduce((n, c) => n + Buffer.byteLength(c), 0);
    const req = http.request(url + path, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(length) }),
      },
    });
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, json: JSON.parse(Buffer.concat(parts).toString('utf8')) }),
      );
    });
    // The server may answer 413 and close before the whole body is written.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('body limit over a socket', () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await startTestServer({ retry: 'none' });
  });
  afterAll(() => running.close());

  it('answers 413 body_too_large for a Content-Length over 1 MiB, with a request id', async () => {
    const res = await post(running.url, '/api/s2s', [TOO_BIG], false);
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe('body_too_large');
    expect(res.json.error.message).toMatch(/larger than 1048576 bytes/);
    expect(res.headers['x-request-id']).toBe(res.json.error.request_id);
  });

  it('answers 413 for a chunked body that grows over 1 MiB', async () => {
    const res = await post(running.url, '/api/s2s', [TOO_BIG.slice(0, 600_000), TOO_BIG.slice(600_000)], true);
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe('body_too_large');
  });

  it('still reads a chunked body under the limit', async () => {
    const text = JSON.stringify(s2sBody());
    const res = await post(running.url, '/api/s2s', [text.slice(0, 50), text.slice(50)], true);
    expect(res.status).toBe(200);
    expect(res.json.order_status).toBe('0');
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('puts X-Request-Id on a GET with no body', async () => {
    const res = await fetch(`${running.url}/_sandbox/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('body limit in-process (app.request sends no Content-Length)', () => {
  it('answers 413 body_too_large', async () => {
    const sandbox = createTestSandbox();
    try {
      const res = await sandbox.request('POST', '/api/s2s', TOO_BIG, { 'content-type': 'application/json' });
      expect(res.status).toBe(413);
      expect(res.json.error.code).toBe('body_too_large');
      expect(res.headers.get('x-request-id')).toBe(res.json.error.request_id);
    } finally {
      sandbox.close();
    }
  });
});

/** Writes `parts` to a raw socket (ending it when `end`), and collects what comes back until EOF or an error. */
function rawExchange(url: string, parts: string[], end: boolean): Promise<{ text: string; error: string | null }> {
  return new Promise((resolve) => {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    let text = '';
    let error: string | null = null;
    socket.on('connect', () => {
      for (const part of parts) socket.write(part);
      if (end) socket.end();
    });
    socket.on('data', (data: Buffer) => (text += data.toString('latin1')));
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    socket.on('close', () => resolve({ text, error }));
  });
}

const CHUNKED_HEAD = 'POST /api/s2s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
const chunk = (data: string) => `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`;

describe('chunked bodies over a raw socket', () => {
  let running: RunningServer;
  let lines: string[];
  beforeAll(async () => {
    ({ sandbox: running, lines } = await startLoggedServer('json'));
  });
  afterAll(() => running.close());

  it.each([
    ['cut off: the client closes mid-chunk', [CHUNKED_HEAD, '50\r\n{"terNO":1'], true],
    ['malformed: a chunk size that is not hex', [CHUNKED_HEAD, chunk('{"terNO":'), 'zz\r\n1001}\r\n0\r\n\r\n'], true],
  ] as const)('%s: logged as a 400, not as a bug with a stack', async (_what, parts, end) => {
    lines.length = 0;
    const res = await rawExchange(running.url, [...parts], end);
    // node:http answers a malformed chunk itself; a cut-off body gets no answer (the client left).
    if (res.text) expect(res.text).toMatch(/^HTTP\/1\.1 400 /);
    const logged = await waitFor(() => lines.map((line) => JSON.parse(line)).find((entry) => entry.type === 'request'), 'the request line');
    expect(logged).toMatchObject({ method: 'POST', path: '/api/s2s', status: 400 });
    expect(lines.filter((line) => JSON.parse(line).level === 'error')).toEqual([]);
  });

  it('a chunked body over 1 MiB gets the whole 413 with Connection: close, then EOF, no reset', async () => {
    const piece = 'x'.repeat(64 * 1024);
    const parts = [CHUNKED_HEAD, ...Array.from({ length: 24 }, () => chunk(piece)), '0\r\n\r\n'];
    // The socket is left open: the server must be the one that closes it, after its answer.
    const res = await rawExchange(running.url, parts, false);
    expect(res.error).toBeNull();
    const [head, body] = res.text.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head).toMatch(/^connection: close$/im);
    expect(head).not.toMatch(/^keep-alive:/im);
    expect(Buffer.byteLength(body!)).toBe(Number(/^content-length: (\d+)$/im.exec(head!)![1]));
    expect(JSON.parse(body!).error.code).toBe('body_too_large');
  });
});
