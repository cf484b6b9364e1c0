// The 1 MiB body limit over a real socket (Content-Length and chunked bodies) and in-process,
// and the X-Request-Id header on every answer. The limit checks the header instead of building
// a stream per request (a hot-path fix found by the bench), so each way in is proven here.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { createTestSandbox, s2sBody, startTestServer } from '../helpers/test-sandbox.js';

const TOO_BIG = 'x'.repeat(1024 * 1024 + 1);

/** POSTs `body` in the given chunks; with `chunked` no Content-Length is sent. */
function post(url: string, path: string, chunks: string[], chunked: boolean): Promise<{ status: number; headers: http.IncomingHttpHeaders; json: any }> {
  return new Promise((resolve, reject) => {
    const length = chunks.reduce((n, c) => n + Buffer.byteLength(c), 0);
    const req = http.request(url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(length) }) },
    });
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, json: JSON.parse(Buffer.concat(parts).toString('utf8')) }));
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
