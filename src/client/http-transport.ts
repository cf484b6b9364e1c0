// How the control client's requests travel by default: node:http and node:https, not the global
// fetch. A CLI command is a short process that sends a request or two, and the first fetch() of a
// process loads undici (its HTTP stack, web streams, zlib): more CPU than the rest of a client
// command together (docs/benchmarks.md, "CLI start-up"). The answer keeps the few members of a
// fetch Response the client reads, so a fetch (the MCP route's, into the app) still fits, and a
// request behaves as fetch's does: an aborted or timed-out signal rejects with the signal's reason.
import type { IncomingMessage } from 'node:http';

/** What the control client reads of an answer: a fetch Response has these members too. */
export interface TransportAnswer {
  readonly status: number;
  readonly ok: boolean;
  /** The body as it arrives (the activity stream's events): a node:http answer, or a fetch Response's web stream. */
  readonly body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array> | null;
  /** The whole body as UTF-8 text. */
  text(): Promise<string>;
}

/** A request as the control client makes it: a subset of fetch's RequestInit. */
export interface TransportRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** Sends one request and resolves with its answer once the headers are in. */
export type Transport = (url: string, init: TransportRequest) => Promise<TransportAnswer>;

/** Sends a request with node:http (node:https for an https:// URL), each loaded on first use. */
export const httpTransport: Transport = async (url, init) => {
  const target = new URL(url);
  const { request } = target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const { signal, body } = init;
  const headers = body === undefined ? { ...init.headers } : { ...init.headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise<TransportAnswer>((resolve, reject) => {
    const req = request(target, { method: init.method ?? 'GET', headers, signal }, (res) => resolve(answerOf(res, signal)));
    req.on('error', (err) => reject(signal?.aborted ? signal.reason : err));
    req.end(body);
  });
};

function answerOf(res: IncomingMessage, signal: AbortSignal | undefined): TransportAnswer {
  const status = res.statusCode ?? 0;
  return {
    status,
    ok: status >= 200 && status < 300,
    body: res,
    async text() {
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of res) chunks.push(chunk as Buffer);
      } catch (err) {
        throw signal?.aborted ? signal.reason : err;
      }
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}
