// The main thread's side of the front thread (front-thread.ts): the sandbox's HTTP server when the
// compiled thread entry is there. The thread parses each request and reads its body; here the app
// runs on it through @hono/node-server's own request listener, given stand-ins for node:http's
// request and response that carry what the thread read and send the answer back. So the app, its
// middleware (request ids, logs, API faults that reset or close the connection, the live stream)
// and its answers are exactly those of the in-process server, and the main thread, the one SQLite
// writer, spends nothing on parsing HTTP, reading sockets or writing answers.
import { EventEmitter } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { getRequestListener } from '@hono/node-server';
import { takeFrontThread } from './early-thread.js';
import type { FrontBody } from '../../http/prevalidation.js';
import type { JournalNote } from '../../services/journal/journal-row.js';
import type { NewJournalRow } from '../../store/journal-repo.js';
import type { Logger } from '../../runtime/logger.js';
import type { FromFront, FrontRequest, FrontSettings, ToFront } from './protocol.js';

/** The app as the front server runs it. */
export type Fetch = (request: Request, env: unknown) => Response | Promise<Response>;

/** The socket of a request from the front thread: where it came from, and a reset that the thread carries out. */
class ForwardedSocket {
  destroyed = false;
  constructor(
    readonly remoteAddress: string | undefined,
    readonly remotePort: number | undefined,
    readonly remoteFamily: string | undefined,
    readonly encrypted: boolean,
    private readonly drop: (reset: boolean) => void,
  ) {}

  resetAndDestroy(): this {
    this.destroy(true);
    return this;
  }

  destroySoon(): void {
    this.destroy();
  }

  destroy(reset = false): this {
    if (!this.destroyed) {
      this.destroyed = true;
      this.drop(reset);
    }
    return this;
  }
}

/** node:http's request, as far as @hono/node-server and the app read it: the body was read whole by the thread. */
class ForwardedRequest extends EventEmitter {
  readonly method: string;
  readonly url: string;
  readonly headers: FrontRequest['headers'];
  readonly socket: ForwardedSocket;
  readonly front: FrontBody;
  /** Set by the journal middleware when the thread is to build this request's journal row (http/prevalidation.ts noteForFront). */
  journal: JournalNote | undefined;
  readonly httpVersion = '1.1';
  readonly complete = true;
  readonly readableEnded = true;
  readonly readableAborted = false;
  readonly readableDidRead = false;
  readonly readableLength = 0;
  readonly readableEncoding = null;
  readonly errored = null;
  destroyed = false;
  private readonly bytes: Uint8Array | null;
  private raw: Buffer | undefined;

  constructor(request: FrontRequest, socket: ForwardedSocket) {
    super();
    this.method = request.method;
    this.url = request.url;
    this.headers = request.headers;
    this.socket = socket;
    this.front = { text: request.text, validated: request.validated };
    this.bytes = request.bytes;
  }

  /** The body's bytes (@hono/node-server reads a request's body from here), made from the text only when asked. */
  get rawBody(): Buffer {
    this.raw ??= this.bytes
      ? Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength)
      : Buffer.from(this.front.text ?? '');
    return this.raw;
  }

  /** node:http's raw header list, made from the header record when asked. */
  get rawHeaders(): string[] {
    const raw: string[] = [];
    for (const [name, value] of Object.entries(this.headers)) {
      if (Array.isArray(value)) for (const one of value) raw.push(name, one);
      else if (value !== undefined) raw.push(name, value);
    }
    return raw;
  }

  read(): null {
    return null;
  }

  resume(): this {
    return this;
  }

  pause(): this {
    return this;
  }

  destroy(): this {
    this.destroyed = true;
    return this;
  }
}

/** node:http's response, as @hono/node-server and the app write it: each call becomes a message to the thread. */
class ForwardedResponse extends EventEmitter {
  statusCode = 200;
  headersSent = false;
  writable = true;
  writableEnded = false;
  writableFinished = false;
  destroyed = false;
  private head: Record<string, unknown> = {};
  /** The thread said the socket is full: writes wait for 'drain'. */
  private full = false;

  constructor(
    private readonly id: number,
    private readonly send: (message: ToFront) => void,
    private readonly finished: (id: number) => void,
    private readonly request: ForwardedRequest,
  ) {
    super();
  }

  writeHead(status: number, headers?: Record<string, unknown>): this {
    this.statusCode = status;
    if (headers) this.head = headers;
    return this;
  }

  hasHeader(): boolean {
    return false;
  }

  flushHeaders(): void {
    if (this.headersSent || this.destroyed) return;
    this.headersSent = true;
    this.send({ kind: 'head', id: this.id, status: this.statusCode, headers: this.head, journal: this.request.journal });
  }

  write(chunk: string | Uint8Array): boolean {
    if (this.destroyed || this.writableEnded) return false;
    this.flushHeaders();
    this.send({ kind: 'chunk', id: this.id, chunk });
    return !this.full;
  }

  end(chunk?: string | Uint8Array | (() => void)): this {
    if (this.destroyed || this.writableEnded) return this;
    const body = typeof chunk === 'function' || chunk === undefined ? null : chunk;
    this.writableEnded = true;
    this.writable = false;
    if (this.headersSent) this.send({ kind: 'end', id: this.id, chunk: body });
    else {
      this.headersSent = true;
      this.send({ kind: 'answer', id: this.id, status: this.statusCode, headers: this.head, body, journal: this.request.journal });
    }
    this.writableFinished = true;
    this.finished(this.id);
    this.emit('finish');
    this.emit('close');
    return this;
  }

  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.writable = false;
    if (!this.writableEnded) this.send({ kind: 'drop', id: this.id, reset: false });
    this.finished(this.id);
    this.emit('close');
    return this;
  }

  /** The client went away: what node:http's response does when its socket closes. */
  gone(): void {
    if (this.destroyed || this.writableFinished) return;
    this.destroyed = true;
    this.writable = false;
    this.emit('close');
  }

  /** Backpressure from the thread's socket. */
  setFull(full: boolean): void {
    this.full = full;
    if (!full) this.emit('drain');
  }
}

/** The address the front thread listens on. */
export interface FrontAddress {
  address: string;
  family: string;
  port: number;
}

/** A running front thread. */
export interface FrontServer {
  address: FrontAddress;
  /** Stops accepting, lets requests in flight finish (streams get `graceMs`), ends the thread. */
  close(graceMs: number): Promise<void>;
  /** The running thread (tests end it to see it started again). */
  thread(): Worker;
}

/** An error the listen met, as node:http reports it (code: EADDRINUSE, EACCES, ...). */
export class FrontListenError extends Error {
  constructor(
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** Deaths of the thread within a minute after which it is not started again. */
const DEATHS_TO_GIVE_UP = 3;

/**
 * Starts the front thread listening as `settings` say and runs `fetch` (the app) on its requests;
 * resolves once it listens, rejects with a FrontListenError when it cannot. A thread that dies is
 * started again on the same port (logged; the requests it held are cut, as a dropped connection
 * would be: their clients retry, with the same Idempotency-Key for creates).
 */
export function startFrontServer(
  settings: FrontSettings,
  fetch: Fetch,
  logger: Logger,
  journal: (rows: NewJournalRow[]) => void,
): Promise<FrontServer> {
  const listener = getRequestListener(fetch);
  const responses = new Map<number, ForwardedResponse>();
  let outbox: ToFront[] = [];
  let flushQueued = false;
  let closed: (() => void) | undefined;
  let stopping = false;
  let deaths: number[] = [];
  let thread: Worker;

  /** Sends the turn's answers in one message once the turn is done. */
  const send = (message: ToFront) => {
    outbox.push(message);
    if (flushQueued) return;
    flushQueued = true;
    setImmediate(() => {
      flushQueued = false;
      thread.postMessage(outbox.splice(0));
    });
  };
  const finished = (id: number) => responses.delete(id);

  const run = (request: FrontRequest) => {
    const [address, port, family] = request.remote;
    const socket = new ForwardedSocket(address, port, family, request.secure, (reset) => {
      responses.delete(request.id);
      send({ kind: 'drop', id: request.id, reset });
    });
    const incoming = new ForwardedRequest(request, socket);
    const outgoing = new ForwardedResponse(request.id, send, finished, incoming);
    responses.set(request.id, outgoing);
    void listener(incoming as never, outgoing as never);
  };

  const spawn = (threadSettings: FrontSettings, started: (address: FrontAddress) => void, failed: (err: Error) => void) => {
    const { worker, failure: early } = takeFrontThread(threadSettings);
    let failure = early;
    let listened = false;
    worker.on('message', (message: FromFront) => {
      switch (message.kind) {
        case 'requests':
          for (const request of message.requests) run(request);
          break;
        case 'journal':
          journal(message.rows);
          break;
        case 'gone':
          for (const id of message.ids) responses.get(id)?.gone();
          break;
        case 'full':
          responses.get(message.id)?.setFull(true);
          break;
        case 'drained':
          responses.get(message.id)?.setFull(false);
          break;
        case 'listening':
          listened = true;
          started(message.address);
          break;
        case 'listen-error':
          failure = new FrontListenError(message.code, message.message);
          void worker.terminate();
          break;
        case 'closed':
          closed?.();
          break;
      }
    });
    worker.on('error', (err) => (failure = err));
    worker.on('exit', (code) => {
      if (worker !== thread) return;
      if (stopping) return closed?.();
      // One that never listened (it could not, or its code did not load) is no running thread to start again.
      if (failure instanceof FrontListenError || !listened) return failed(failure ?? new Error(`exit code ${code}`));
      died(failure?.message ?? `exit code ${code}`);
    });
    return worker;
  };

  /** The thread ended without being asked to: its connections went with it; listen again on the same port. */
  const died = (why: string) => {
    const cut = responses.size;
    for (const response of [...responses.values()]) response.gone();
    responses.clear();
    outbox = [];
    const now = Date.now();
    deaths = [...deaths.filter((at) => at > now - 60_000), now];
    const lost = `${cut} request${cut === 1 ? '' : 's'} in flight ${cut === 1 ? 'was' : 'were'} cut`;
    if (deaths.length >= DEATHS_TO_GIVE_UP) {
      logger.error(
        `HTTP front thread stopped (${why}), ${DEATHS_TO_GIVE_UP} times in a minute; the sandbox no longer answers requests; ${lost}`,
      );
      return;
    }
    logger.error(`HTTP front thread stopped (${why}); started again; ${lost}`);
    thread = spawn(
      { ...settings, port: address.port },
      () => {},
      (err) =>
        logger.error(
          `HTTP front thread could not listen again on port ${address.port} (${err.message}); the sandbox no longer answers requests`,
        ),
    );
  };

  let address: FrontAddress;
  return new Promise((resolve, reject) => {
    thread = spawn(
      settings,
      (listening) => {
        address = listening;
        resolve({ address: listening, close, thread: () => thread });
      },
      reject,
    );
  });

  async function close(graceMs: number): Promise<void> {
    stopping = true;
    await new Promise<void>((resolve) => {
      closed = resolve;
      send({ kind: 'close', graceMs });
    });
    await thread.terminate();
  }
}
