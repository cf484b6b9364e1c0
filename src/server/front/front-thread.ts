// The entry of the front thread (node:worker_threads): it owns the listening socket and the HTTP
// side of every request (node:http's parsing, reading the body, writing the answer, the slow-client
// limits), so the main thread, the one SQLite writer, only runs the app on each request it is
// handed (front-server.ts). Requests go to the main thread and answers come back in batches, at
// most one message a turn each way (protocol.ts).
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { parentPort, workerData } from 'node:worker_threads';
import type { FrontBody } from '../../http/prevalidation.js';
import { TLS_SUITES } from '../../tls/cipher-suites.js';
import type { FromFront, FrontRequest, FrontSettings, ToFront } from './protocol.js';

if (!parentPort) throw new Error('front-thread.js runs as a worker thread of the sandbox (front-server.ts starts it)');
const port = parentPort;
const settings = workerData as FrontSettings;

// Fatal: bytes that are not UTF-8 go over as bytes, for the main thread to refuse as bodyText() does.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses and validates the busiest creates' bodies (http/prevalidation.ts). Loaded once the thread
 * listens, so its schemas never delay the first answer; until then requests go without it.
 */
let prevalidate: ((method: string, url: string, headers: FrontRequest['headers'], text: string) => FrontBody['validated']) | undefined;

/** Requests handed over and not yet answered, by id. */
const open = new Map<number, { req: IncomingMessage; res: ServerResponse; streaming: boolean }>();
let nextId = 1;
const outbox: FrontRequest[] = [];
const gone: number[] = [];
let flushQueued = false;

function post(message: FromFront): void {
  port.postMessage(message);
}

/** Sends the turn's requests (and departures) in one message each, once the turn's reads are done. */
function queueFlush(): void {
  if (flushQueued) return;
  flushQueued = true;
  setImmediate(() => {
    flushQueued = false;
    if (outbox.length > 0) post({ kind: 'requests', requests: outbox.splice(0) });
    if (gone.length > 0) post({ kind: 'gone', ids: gone.splice(0) });
  });
}

/** The most body bytes read for this request; past it the body is left unread (the main thread refuses it by its length). */
function limitFor(url: string): number {
  const path = url.split('?')[0];
  return settings.largeBodies.find((large) => large.path === path)?.limitBytes ?? settings.bodyLimitBytes;
}

function onRequest(req: IncomingMessage, res: ServerResponse): void {
  const id = nextId++;
  open.set(id, { req, res, streaming: false });
  res.on('close', () => {
    if (!open.has(id)) return;
    open.delete(id);
    gone.push(id);
    queueFlush();
  });
  const length = req.headers['content-length'];
  const limit = limitFor(req.url ?? '/');
  const hasBody = length !== undefined ? Number(length) > 0 : req.headers['transfer-encoding'] !== undefined;
  // Declared too large: handed over unread, and the main thread answers 413 from Content-Length.
  if (!hasBody || (length !== undefined && Number(length) > limit)) {
    handOver(id, req, null);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  req.on('data', (chunk: Buffer) => {
    if (done) return;
    chunks.push(chunk);
    size += chunk.length;
    // A chunked body past the limit: one byte over is enough for the main thread to refuse it.
    if (size > limit) {
      done = true;
      req.pause();
      handOver(id, req, Buffer.concat(chunks, size));
    }
  });
  req.on('end', () => {
    if (done) return;
    done = true;
    handOver(id, req, chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, size));
  });
  // A client that stops sending midway: its socket closes (requestTimeout) and res 'close' reports it gone.
  req.on('error', () => {});
}

function handOver(id: number, req: IncomingMessage, body: Buffer | null): void {
  if (!open.has(id)) return;
  let text: string | null = null;
  let bytes: Uint8Array | null = null;
  if (body !== null) {
    try {
      text = UTF8.decode(body);
    } catch {
      bytes = new Uint8Array(body);
    }
  }
  const socket = req.socket;
  outbox.push({
    id,
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers: req.headers,
    remote: [socket.remoteAddress, socket.remotePort, socket.remoteFamily],
    secure: settings.tls !== null,
    text,
    bytes,
    validated: text === null ? null : validatedOn(req, text),
  });
  queueFlush();
}

/**
 * The body's input when prevalidate() accepts it. A throw there (a bug) would end this thread and
 * cut every connection it holds: the body goes over unvalidated instead, and the main thread's
 * route validates it and answers as it always does.
 */
function validatedOn(req: IncomingMessage, text: string): FrontRequest['validated'] {
  if (prevalidate === undefined) return null;
  try {
    return prevalidate(req.method ?? 'GET', req.url ?? '/', req.headers, text);
  } catch {
    return null;
  }
}

function write(res: ServerResponse, chunk: string | Uint8Array | null): boolean {
  return chunk === null ? true : res.write(chunk);
}

function answer(message: ToFront): void {
  if (message.kind === 'close') {
    close(message.graceMs);
    return;
  }
  const entry = open.get(message.id);
  if (!entry) return;
  const { res, req } = entry;
  switch (message.kind) {
    case 'answer':
      open.delete(message.id);
      res.writeHead(message.status, message.headers as http.OutgoingHttpHeaders);
      res.end(message.body ?? undefined);
      break;
    case 'head':
      entry.streaming = true;
      res.writeHead(message.status, message.headers as http.OutgoingHttpHeaders);
      res.flushHeaders();
      break;
    case 'chunk':
      if (!write(res, message.chunk)) {
        post({ kind: 'full', id: message.id });
        res.once('drain', () => post({ kind: 'drained', id: message.id }));
      }
      break;
    case 'end':
      open.delete(message.id);
      res.end(message.chunk ?? undefined);
      break;
    case 'drop':
      open.delete(message.id);
      if (message.reset && typeof req.socket.resetAndDestroy === 'function') req.socket.resetAndDestroy();
      else res.destroy();
      break;
  }
}

// The same server options as the main thread's server (start-server.ts newServer): TLS 1.2 or 1.3
// with the sandbox's suites, and a handshake that must end within the headers' time limit.
const server = settings.tls
  ? https.createServer(
      {
        cert: settings.tls.cert,
        key: settings.tls.key,
        connectionsCheckingInterval: checkEvery(),
        ...TLS_SUITES,
        handshakeTimeout: settings.headersTimeoutMs,
      },
      onRequest,
    )
  : http.createServer({ connectionsCheckingInterval: checkEvery() }, onRequest);
// Slow clients may not hold a connection forever (headers within 10 s, whole request within 30 s).
server.headersTimeout = settings.headersTimeoutMs;
server.requestTimeout = settings.requestTimeoutMs;
server.keepAliveTimeout = settings.keepAliveTimeoutMs;

/** Node checks the two timeouts above only every connectionsCheckingInterval (30 s by default); every second instead. */
function checkEvery(): number {
  return Math.min(1000, settings.headersTimeoutMs);
}

function close(graceMs: number): void {
  server.close(() => post({ kind: 'closed' }));
  server.closeIdleConnections();
  // Streams (SSE) and stuck clients get the grace period to finish, then are cut.
  setTimeout(() => server.closeAllConnections(), graceMs).unref();
}

port.on('message', (batch: ToFront[]) => {
  for (const message of batch) answer(message);
});
server.once('error', (err: NodeJS.ErrnoException) => post({ kind: 'listen-error', code: err.code, message: err.message }));
server.listen(settings.port, settings.host, () => {
  const address = server.address() as { address: string; family: string; port: number };
  post({ kind: 'listening', address: { address: address.address, family: address.family, port: address.port } });
  void import('../../http/prevalidation.js').then((module) => (prevalidate = module.prevalidate));
});
