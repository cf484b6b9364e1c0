// The entry of the front thread (node:worker_threads): it owns the listening socket and the HTTP
// side of every request (node:http's parsing, reading the body, writing the answer, the slow-client
// limits), so the main thread, the one SQLite writer, only runs the app on each request it is
// handed (front-server.ts). Requests go to the main thread and answers come back in batches, at
// most one message a turn each way (protocol.ts).
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type { FrontBody } from '../../http/prevalidation.js';
import { TLS_SUITES } from '../../tls/cipher-suites.js';
import type { FromFront, FrontRequest, FrontSettings, ToFront } from './protocol.js';
import {
  answerKept,
  BODY_LIMIT_CHARS,
  journalRow,
  type JournalNote,
  keepsRequestBody,
  requestRecord,
} from '../../services/journal/journal-row.js';
import type { NewJournalRow } from '../../store/journal-repo.js';

if (!parentPort) throw new Error('front-thread.js runs as a worker thread of the sandbox (front-server.ts starts it)');
const port = parentPort;
/**
 * Parses and validates the busiest creates' bodies (http/prevalidation.ts), which takes that work off
 * the main thread when requests come at once; until it is loaded, requests go without it and the
 * main thread validates them. Loading it and building its two schemas (which are otherwise built on
 * first use, src/lazy-schema.ts) holds the thread for 40-50 ms, so it is done the first time two
 * requests are in flight at once, when it is needed. A sandbox that one request at a time drives
 * (a test suite) never needs it, and its start never waits for it: loaded while the thread waited
 * for its settings, it was often still building when they came, and held the first answer of
 * `sandbox start` 1-44 ms (docs/decisions.md).
 */
let prevalidate: ((method: string, url: string, headers: FrontRequest['headers'], text: string) => FrontBody['validated']) | undefined;
let prevalidationLoading = false;
const loadPrevalidation = () => {
  if (prevalidationLoading) return;
  prevalidationLoading = true;
  // A load that fails leaves requests to the main thread's validation; unhandled, its rejection
  // would end this thread, and each thread started again would end the same way.
  import('../../http/prevalidation.js').then(
    (module) => {
      module.buildPrevalidationSchemas();
      prevalidate = module.prevalidate;
    },
    () => {},
  );
};

// Started early (early-thread.ts), the thread boots while the main thread loads the app, and is
// told where to listen by its first message.
const waiting = workerData === null ? receiveMessageOnPort(port) : undefined;
const settings: FrontSettings =
  (workerData as FrontSettings | null) ??
  (waiting?.message as FrontSettings | undefined) ??
  (await new Promise<FrontSettings>((resolve) => port.once('message', resolve)));

// Fatal: bytes that are not UTF-8 go over as bytes, for the main thread to refuse as bodyText() does.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A request handed over and not yet answered. */
interface Open {
  req: IncomingMessage;
  res: ServerResponse;
  streaming: boolean;
  /** The body as the main thread got it: text, or null (none, or not UTF-8: `binary`). */
  text: string | null;
  binary: boolean;
  /** A streamed answer whose journal row this thread builds: the row's note, the head, and the text so far. */
  journal?: { note: JournalNote; status: number; headers: Record<string, unknown>; chunks: string[] | null; size: number };
}

/** Requests handed over and not yet answered, by id. */
const open = new Map<number, Open>();
let nextId = 1;
const outbox: FrontRequest[] = [];
/** Journal rows built this turn, sent ahead of the turn's requests (a request that reads the journal finds them written). */
const journalRows: NewJournalRow[] = [];
/** A streamed answer's text kept for its journal row at most (the row keeps BODY_LIMIT_CHARS of it). */
const STREAM_KEPT_CHARS = BODY_LIMIT_CHARS * 2;
const ANSWER_TEXT = new TextDecoder();
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
    if (journalRows.length > 0) post({ kind: 'journal', rows: journalRows.splice(0) });
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
  open.set(id, { req, res, streaming: false, text: null, binary: false });
  if (open.size > 1) loadPrevalidation();
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
  const entry = open.get(id);
  if (!entry) return;
  let text: string | null = null;
  let bytes: Uint8Array | null = null;
  if (body !== null) {
    try {
      text = UTF8.decode(body);
    } catch {
      bytes = new Uint8Array(body);
    }
  }
  entry.text = text;
  entry.binary = bytes !== null;
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
      if (message.journal) journal(entry, message.journal, message.status, message.headers, message.body);
      break;
    case 'head':
      entry.streaming = true;
      res.writeHead(message.status, message.headers as http.OutgoingHttpHeaders);
      res.flushHeaders();
      if (message.journal) {
        const { journal: note, status, headers } = message;
        // Only an answer kept as text is gathered (journal-row.ts answerKept).
        const text = answerKept(note.path, status, (name) => headerOf(headers, name)).text;
        entry.journal = { note, status, headers, chunks: text ? [] : null, size: 0 };
      }
      break;
    case 'chunk':
      keepChunk(entry, message.chunk);
      if (!write(res, message.chunk)) {
        post({ kind: 'full', id: message.id });
        res.once('drain', () => post({ kind: 'drained', id: message.id }));
      }
      break;
    case 'end':
      open.delete(message.id);
      res.end(message.chunk ?? undefined);
      keepChunk(entry, message.chunk);
      if (entry.journal) {
        const { note, status, headers, chunks } = entry.journal;
        journal(entry, note, status, headers, chunks === null ? null : chunks.join(''));
      }
      break;
    case 'drop':
      open.delete(message.id);
      if (message.reset && typeof req.socket.resetAndDestroy === 'function') req.socket.resetAndDestroy();
      else res.destroy();
      break;
  }
}

/** A header of an answer as the main thread sent it (a plain object), by any case of its name. */
function headerOf(headers: Record<string, unknown>, name: string): string | null {
  for (const [key, value] of Object.entries(headers))
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(', ') : value === undefined ? null : String(value);
  return null;
}

/** Keeps a streamed answer's chunk for its journal row, up to STREAM_KEPT_CHARS. */
function keepChunk(entry: Open, chunk: string | Uint8Array | null): void {
  const kept = entry.journal;
  if (!kept?.chunks || chunk === null) return;
  const text = typeof chunk === 'string' ? chunk : ANSWER_TEXT.decode(chunk, { stream: true });
  if (kept.size < STREAM_KEPT_CHARS) kept.chunks.push(text);
  kept.size += text.length;
}

/**
 * Builds the request's journal row from what this thread read and wrote and what the main thread
 * noted (journal-row.ts: the same masking as without the thread), to be sent with the turn's
 * requests. A throw here (a bug) would end the thread and cut every connection: the row is lost instead.
 */
function journal(entry: Open, note: JournalNote, status: number, headers: Record<string, unknown>, body: string | Uint8Array | null): void {
  try {
    const { req } = entry;
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const kept = answerKept(note.path, status, (name) => headerOf(headers, name));
    const requestHeaders: Array<[string, string]> = [];
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined) requestHeaders.push([name, Array.isArray(value) ? value.join(', ') : value]);
    const idempotencyKey = req.headers['idempotency-key'];
    // The status this thread answered with stands (the note is this thread's copy of the message).
    note.status = status;
    journalRows.push(
      journalRow(
        requestRecord(note, {
          method,
          query: query < 0 ? '' : url.slice(query + 1),
          idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : null,
          headers: requestHeaders,
          requestBody: keepsRequestBody(method, note.path) && !entry.binary ? (entry.text ?? '') : null,
          responseType: kept.type,
          responseBody: kept.text ? (typeof body === 'string' ? body : body === null ? '' : ANSWER_TEXT.decode(body)) : kept.body,
        }),
      ),
    );
    queueFlush();
  } catch {
    // A record for people, not state: never worth the thread.
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
});
