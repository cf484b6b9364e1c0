// One webhook POST over node:http with keep-alive agents: about 5x the throughput of fetch()
// on this machine. Redirects are not followed; the answer's status must come within the timeout,
// and at most the first 16 KiB of its body is read. An HttpSender owns its agents (connections
// kept open per origin) and the URLs it parsed; it runs on the sender thread (sender-thread.ts),
// or on the main thread where no thread is used.
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { present } from '../../errors.js';
import { TLS_SUITES } from '../../tls/cipher-suites.js';

/** The outcome of one POST: a status, or an error kind a merchant can act on. */
export interface PostResult {
  status: number | null;
  headers: Record<string, string> | null;
  /** The first 16 KiB of the response body. */
  body: string | null;
  latencyMs: number;
  /** null on 2xx; otherwise refused | timeout | dns | tls | reset | redirect | http_status | invalid_url */
  errorKind: string | null;
  errorMessage: string | null;
}

const RESPONSE_EXCERPT_BYTES = 16 * 1024;
/** How long a connection is kept idle at most (shorter when the receiver announces a shorter one); above any webhook timeout, which it must not cut. */
const IDLE_MS = 65_000;
/** Parsed URLs an HttpSender keeps; past it the cache starts over (per-order URLs are all different). */
const URL_CACHE = 4096;

function classify(err: NodeJS.ErrnoException): string {
  const code = err.code ?? '';
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED') return 'reset';
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/.test(code)) return 'tls';
  return 'network';
}

/** Decides before anything is sent that a URL must not be: the reason, or undefined to send. */
export type TargetCheck = (url: URL) => Promise<string | undefined>;

/** A POST never sent: its URL is no http(s) URL, or the target check refused it. */
const notSent = (errorMessage: string): PostResult => ({
  status: null,
  headers: null,
  body: null,
  latencyMs: 0,
  errorKind: 'invalid_url',
  errorMessage,
});

/** `text` as a URL to POST to, or undefined when it is no http(s) URL. */
function httpUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** What a request to POST holds. */
export interface PostRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** How an HttpSender connects. */
export interface HttpSenderOptions {
  /** Extra CA certificates (PEM) an https receiver's certificate may chain to, next to Node's own roots. */
  extraCa?: readonly string[];
}

/** POSTs webhooks over its own keep-alive connections, one pool per origin. */
export class HttpSender {
  private readonly agents: { http: http.Agent; https: https.Agent };
  private readonly urls = new Map<string, URL | undefined>();

  constructor(options: HttpSenderOptions = {}) {
    const ca = options.extraCa?.length ? [...tls.rootCertificates, ...options.extraCa] : undefined;
    // With a timeout of its own, Node 20's agent also closes an idle connection a second before the
    // receiver's `Keep-Alive: timeout=N` says the receiver will (without one it ignores the hint), so
    // a connection is seldom reused as the receiver closes it; send() covers the rest.
    const kept = { keepAlive: true, maxSockets: 64, timeout: IDLE_MS };
    this.agents = {
      http: new http.Agent(kept),
      https: new https.Agent({ ...kept, ...TLS_SUITES, ...(ca ? { ca } : {}) }),
    };
  }

  /** POSTs `body` to `url` unless `check` refuses it (then nothing is sent: error kind invalid_url); never throws. */
  async post(request: PostRequest, timeoutMs: number, check?: TargetCheck): Promise<PostResult> {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    const url = this.parsed(request.url);
    if (!url) return notSent(`not an http(s) URL: ${request.url}`);
    const refused = check ? await check(url) : undefined;
    if (refused !== undefined) return notSent(refused);
    return send(url, request, timeoutMs, elapsed, url.protocol === 'https:' ? this.agents.https : this.agents.http);
  }

  /** Closes the connections kept open, so nothing of the sender outlives it. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** `text` parsed once per URL (node:http reads a URL object without changing it). */
  private parsed(text: string): URL | undefined {
    if (this.urls.has(text)) return this.urls.get(text);
    if (this.urls.size >= URL_CACHE) this.urls.clear();
    const url = httpUrl(text);
    this.urls.set(text, url);
    return url;
  }
}

/** The senders of one-off POSTs (the webhook audit's, sandbox send's), one per list of extra CAs, made on first use. */
const oneOff = new Map<readonly string[] | undefined, HttpSender>();

/** POSTs one request on a shared sender (the audit's cases, sandbox send); an https receiver may also chain to `extraCa`; never throws. */
export function postWebhook(
  request: PostRequest,
  timeoutMs: number,
  check?: TargetCheck,
  extraCa?: readonly string[],
): Promise<PostResult> {
  const key = extraCa?.length ? extraCa : undefined;
  let sender = oneOff.get(key);
  if (!sender) {
    sender = new HttpSender({ extraCa: key });
    oneOff.set(key, sender);
  }
  return sender.post(request, timeoutMs, check);
}

/** The attempt graded by the answer's status: 2xx succeeds; a redirect is not followed. */
function graded(answer: http.IncomingMessage, body: string): Omit<PostResult, 'latencyMs'> {
  const status = answer.statusCode ?? 0;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const ok = status >= 200 && status < 300;
  const redirect = status >= 300 && status < 400;
  return {
    status,
    headers,
    body,
    errorKind: ok ? null : redirect ? 'redirect' : 'http_status',
    errorMessage: ok
      ? null
      : redirect
        ? `answered ${status} (redirects are not followed; answer 2xx at the webhook URL itself)`
        : `answered ${status}`,
  };
}

/**
 * Connections kept open that may fail at once when reused, before a fresh one is made. A receiver
 * closes an idle kept-alive connection on its own timer (node:http after 5 s); a request written on
 * it as it closes meets a reset, though the receiver never read it. Each such failure drops that
 * connection, and the other idle ones the receiver closed are dropped as their close is read, so a
 * few tries reach a live or a fresh one.
 */
const STALE_TRIES = 4;

/** Sends the POST and waits for its answer, at most `timeoutMs`; `elapsed` times it. */
function send(
  url: URL,
  request: { headers: Record<string, string>; body: string },
  timeoutMs: number,
  elapsed: () => number,
  agent: http.Agent,
): Promise<PostResult> {
  const secure = url.protocol === 'https:';
  const payload = Buffer.from(request.body);
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: Omit<PostResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // A literal, not `{ ...result, latencyMs }` (CONTRIBUTING.md: copies that add fields on the request path).
      resolve({
        status: result.status,
        headers: result.headers,
        body: result.body,
        latencyMs: elapsed(),
        errorKind: result.errorKind,
        errorMessage: result.errorMessage,
      });
    };
    let req: http.ClientRequest;
    let answer: http.IncomingMessage | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    // The status and headers decide the attempt; of the body only the first 16 KiB is kept, so an
    // answer with a huge or endless body is graded as soon as that much (or all of it) is in.
    const answered = () => done(graded(present(answer, 'the answer'), Buffer.concat(chunks).toString('utf8')));
    const timer = setTimeout(() => {
      // A status that came in time stands, even while its body is still arriving.
      if (answer) answered();
      else done({ status: null, headers: null, body: null, errorKind: 'timeout', errorMessage: `no answer within ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
    const post = (staleTries: number) => {
      req = (secure ? https : http).request(url, {
        method: 'POST',
        agent,
        headers: { ...request.headers, 'content-length': String(payload.length) },
      });
      const sent = req;
      // A new https connection is in its TLS handshake from the TCP connect to secureConnect: whatever
      // ends it there is a TLS failure, whichever code OpenSSL gives it (INVALID_PURPOSE for a
      // certificate made for clients, EPROTO for a receiver that speaks only TLS 1.0, a reset).
      let handshaking = false;
      if (secure)
        sent.on('socket', (socket) => {
          if (sent.reusedSocket) return;
          socket.once('connect', () => (handshaking = true));
          socket.once('secureConnect', () => (handshaking = false));
        });
      sent.on('error', (err: NodeJS.ErrnoException) => {
        // A kept-alive connection the receiver had closed: sent again, not counted as its answer.
        if (sent.reusedSocket && !answer && !settled && staleTries > 0 && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
          post(staleTries - 1);
          return;
        }
        const message = `${err.code ?? 'error'}: ${err.message}`;
        done({
          ...{ status: null, headers: null, body: null },
          ...(handshaking
            ? { errorKind: 'tls', errorMessage: `the TLS handshake failed: ${message}` }
            : { errorKind: classify(err), errorMessage: message }),
        });
      });
      sent.on('response', (res) => {
        answer = res;
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - size));
          size += Math.min(chunk.length, RESPONSE_EXCERPT_BYTES - size);
          if (size < RESPONSE_EXCERPT_BYTES) return;
          answered();
          res.destroy();
        });
        res.on('error', () => {});
        // 'close' too: a body the receiver cut short still came with its status.
        res.on('end', answered);
        res.on('close', answered);
      });
      sent.end(payload);
    };
    post(STALE_TRIES);
  });
}
