// `sandbox receive`: a small merchant webhook receiver for trying integrations by hand. It verifies
// each signature, decrypts S2S `data` (encryption_method=aes256) with the terminal keys, prints the
// webhook readably and answers 200 (or --status); with --reject-invalid a bad signature gets a 400,
// as a merchant handler that follows docs/webhooks.md answers, so the sandbox retries it. A
// signature that does not verify is explained (receive-diagnosis.ts); a request that is not a
// webhook (a browser's GET /favicon.ico) is one short line on stderr, answered 404. It stops when
// the process that started it exits (parent-watch.ts).
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import kleur from 'kleur';
import { verifyWebhook } from '../signatures/signing.js';
import { orList, SIGNATURE_MODES, type SignatureMode } from '../domain/vocabularies.js';
import { decryptText } from '../crypto/s2s-cipher.js';
import { TLS_SUITES } from '../tls/cipher-suites.js';
import { CliError } from './cli-error.js';
import { ControlClient, sandboxOptions } from './control-client.js';
import { countFlag, signatureModeFlag } from './flag-checks.js';
import type { CliIo } from './io.js';
import { watchParent } from './parent-watch.js';
import { looksLikeWebhook, signatureCause } from './receive-diagnosis.js';
import { errorMessage } from '../errors.js';
import { DRAIN_BYTES, DRAIN_MS } from '../http/oversized-body.js';
import { terminalJson, terminalText as shown } from './terminal-text.js';

/** The largest body receive reads, as the sandbox's own API takes (a webhook of the sandbox is far smaller). */
export const RECEIVE_BODY_LIMIT = 1024 * 1024;
/** How long a client may take over the TLS handshake of --https, as the sandbox's own --https server (Node's default holds a silent socket 120 s). */
const HANDSHAKE_TIMEOUT_MS = 10_000;

interface ReceiveFlags {
  port: string;
  host: string;
  secret: string;
  privateKey?: string;
  publicKey?: string;
  status: string;
  signature: string;
  headerPrefix: string;
  count?: string;
  json?: boolean;
  rejectInvalid?: boolean;
  https?: boolean;
  url: string;
  controlToken?: string;
}

/** What one received webhook was, as printed. */
export interface ReceivedView {
  path: string;
  event: string | null;
  id: string | null;
  delivery_id: string | null;
  attempt: string | null;
  /** The W3C traceparent it carried: a child span of the trace of the request that made the payment (docs/tracing.md). */
  traceparent: string | null;
  signature_valid: boolean;
  /** Why the signature does not verify: a cause of the signature diagnosis, or receive_flags (--signature, --header-prefix). */
  signature_cause: string | null;
  /** That cause in one line saying what to change. */
  signature_message: string | null;
  fields: Record<string, unknown>;
  problem: string | null;
}

/** Reads a webhook: verifies its signature and turns its body into fields. */
export function readWebhook(path: string, headers: http.IncomingHttpHeaders, body: string, flags: ReceiveFlags): ReceivedView {
  const prefix = `x-${flags.headerPrefix.toLowerCase()}`;
  const header = (name: string) => (headers[`${prefix}-${name}`] as string | undefined) ?? null;
  const view: ReceivedView = {
    path,
    event: header('event-type'),
    id: header('event-id'),
    delivery_id: header('delivery-id'),
    attempt: header('attempt'),
    traceparent: (headers.traceparent as string | undefined) ?? null,
    signature_valid: verifyWebhook(headers, flags.secret, body, { mode: flags.signature as SignatureMode, prefix: flags.headerPrefix }),
    signature_cause: null,
    signature_message: null,
    fields: {},
    problem: null,
  };
  const type = String(headers['content-type'] ?? '');
  if (type.startsWith('application/json')) {
    try {
      const envelope = JSON.parse(body) as { event?: string; id?: string; data?: Record<string, unknown>; created_at?: string };
      view.event ??= envelope.event ?? null;
      view.id ??= envelope.id ?? null;
      view.fields = { ...(envelope.data ?? {}), ...(envelope.created_at ? { created_at: envelope.created_at } : {}) };
    } catch {
      view.problem = 'the body is not valid JSON';
    }
    return view;
  }
  let fields = Object.fromEntries(new URLSearchParams(body));
  if (fields.data !== undefined && Object.keys(fields).length === 1) {
    if (!flags.privateKey || !flags.publicKey) {
      view.problem = 'encrypted data (encryption_method=aes256): pass --private-key and --public-key to decrypt it';
    } else {
      try {
        fields = Object.fromEntries(
          new URLSearchParams(decryptText(fields.data, { privateKey: flags.privateKey, publicKey: flags.publicKey }).plaintext),
        );
      } catch (err) {
        view.problem = `cannot decrypt data: ${errorMessage(err)}`;
      }
    }
  }
  view.fields = fields;
  return view;
}

function printable(view: ReceivedView): string {
  const signature = view.signature_valid
    ? kleur.green('signature valid')
    : kleur.red(`signature INVALID${view.signature_cause ? ` (${view.signature_cause})` : ''}`);
  // Every piece but the verdict came in the request: escaped, so none can repaint the line (terminal-text.ts).
  const lines = [
    `${kleur.dim(clock())} ${kleur.bold(shown(view.event ?? 'webhook'))} ${shown(view.id ?? '')} ${kleur.dim(shown(`${view.path}${view.delivery_id ? ` delivery ${view.delivery_id}` : ''}${view.attempt ? ` attempt ${view.attempt}` : ''}`))}  ${signature}`,
  ];
  const fields = Object.entries(view.fields).map(([key, value]) => ({
    key: shown(key),
    value: shown(typeof value === 'string' ? value : JSON.stringify(value)),
  }));
  const width = Math.max(0, ...fields.map(({ key }) => key.length));
  for (const { key, value } of fields) lines.push(`    ${kleur.dim(key.padEnd(width))}  ${value}`);
  if (view.traceparent) lines.push(`    ${kleur.dim('traceparent')}  ${shown(view.traceparent)}`);
  if (view.signature_message) lines.push(`    ${kleur.red(`signature: ${shown(view.signature_message)}`)}`);
  if (view.problem) lines.push(`    ${kleur.yellow(shown(view.problem))}`);
  return lines.join('\n');
}

const clock = () => new Date().toISOString().slice(11, 23);

/** Adds `sandbox receive`. */
export function addReceiveCommand(program: Command, io: CliIo): void {
  const command = program
    .command('receive')
    .description('run a merchant webhook receiver that verifies, decrypts and prints each webhook; says why a signature does not verify')
    .option('-p, --port <port>', 'port to listen on; 0 picks a free one', '3000')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--secret <secret>', 'the webhook signing secret', 'whsec_test_sandbox')
    .option('--private-key <key>', 'terminal private_key, to decrypt S2S data (with --public-key)')
    .option('--public-key <key>', 'terminal public_key, to decrypt S2S data (with --private-key)')
    .option('--status <code>', 'the HTTP status to answer with', '200')
    .option('--signature <mode>', `${orList(SIGNATURE_MODES)}, as the sandbox (or the endpoint) signs`, 'plain')
    .option('--header-prefix <name>', 'the word in X-<name>-Signature, as the sandbox was started with', 'Sandbox')
    .option('--reject-invalid', 'answer 400 to a webhook whose signature does not verify (the sandbox then retries it)')
    .option('--count <n>', 'stop after this many webhooks')
    .option(
      '--https',
      "serve TLS with the local CA's certificate (.sandbox/tls/, made if missing), which a sandbox started in this folder trusts",
    );
  sandboxOptions(command, 'the sandbox that sends the webhooks, asked why a signature does not verify')
    .option('--json', 'print one JSON line per webhook')
    .addHelpText(
      'after',
      `\nBodies over 1 MiB (${RECEIVE_BODY_LIMIT} bytes) are answered 413 and not read.\nIt stops when the process that started it exits (for npx, npm itself).`,
    )
    .action((flags: ReceiveFlags) => runReceive(flags, io));
}

/** The flags' numbers, checked before anything listens: the status to answer, the port, how many webhooks to take. */
function checkFlags(flags: ReceiveFlags): { status: number; port: number; limit: number } {
  const status = Number(flags.status);
  if (!Number.isInteger(status) || status < 200 || status > 599)
    throw new CliError(`--status must be an HTTP status from 200 to 599, got "${flags.status}"`);
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(`--port must be a whole number from 0 to 65535, got "${flags.port}"`);
  signatureModeFlag(flags.signature);
  if (Boolean(flags.privateKey) !== Boolean(flags.publicKey))
    throw new CliError('--private-key and --public-key go together: pass both to decrypt S2S data');
  const limit = countFlag(flags.count);
  // Checks --url now; it is asked only when a signature does not verify.
  new ControlClient(flags);
  return { status, port, limit };
}

/** Receives webhooks until --count of them were printed or Ctrl-C. */
async function runReceive(flags: ReceiveFlags, io: CliIo): Promise<void> {
  const { status, port, limit } = checkFlags(flags);
  let received = 0;
  // Lines come out in the order the requests arrived, even while one waits for the sandbox's answer.
  let printing = Promise.resolve();
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const handle: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const tooLarge = () => answerTooLarge(req, res, io);
    if (Number(req.headers['content-length']) > RECEIVE_BODY_LIMIT) return tooLarge();
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= RECEIVE_BODY_LIMIT) chunks.push(chunk);
      else if (!res.headersSent) tooLarge();
    });
    req.on('end', () => {
      if (size > RECEIVE_BODY_LIMIT) return;
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      if (!looksLikeWebhook(req.method, req.headers)) return answerNotWebhook(req, res, flags, status, io);
      const view = readWebhook(path, req.headers, body, flags);
      answerWebhook(res, view, flags, status);
      printing = printing.then(async () => {
        if (received >= limit) return;
        if (!view.signature_valid) {
          const why = await signatureCause(req.headers, body, flags);
          view.signature_cause = why.cause;
          view.signature_message = why.message;
        }
        io.out(flags.json ? terminalJson(view) : printable(view));
        if (++received >= limit) stop();
      });
    });
  };
  const server = flags.https ? await httpsServer(handle, io) : http.createServer(handle);
  await listenOn(server, port, flags.host);
  const address = server.address() as AddressInfo;
  // On stderr, like listen's: with --json, stdout carries only the webhooks.
  io.err(
    `receiving webhooks at ${flags.https ? 'https' : 'http'}://${flags.host}:${address.port}/ (any path), answering ${status}${flags.rejectInvalid ? ' (400 to a bad signature)' : ''}; Ctrl-C to stop`,
  );
  process.once('SIGINT', stop);
  // Started by npx, receive runs under npm's own shell, which outlives a killed npm: without the
  // watch it kept running and holding its port (parent-watch.ts, as `sandbox start` does).
  const unwatch = watchParent((gone) => {
    io.err(`the process that started receive (${gone.name}, pid ${gone.pid}) exited: stopping`);
    stop();
  });
  await stopped;
  unwatch();
  process.off('SIGINT', stop);
  await printing;
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A TLS server with the local CA's certificate for localhost, 127.0.0.1 and ::1 (local-ca.ts, loaded only here). */
async function httpsServer(handle: http.RequestListener, io: CliIo): Promise<https.Server> {
  const { localCa } = await import('../tls/local-ca.js');
  const { cert, key, caFile, newCa } = localCa();
  if (newCa)
    io.err(kleur.yellow(`made a new local CA (${newCa}): trust ${caFile} in every client that trusted a CA of this folder before`));
  return https.createServer({ cert, key, ...TLS_SUITES, handshakeTimeout: HANDSHAKE_TIMEOUT_MS }, handle);
}

/** Answers a request that is no webhook (a browser's GET /favicon.ico, a health check): not counted or verified, one line on stderr. */
function answerNotWebhook(req: http.IncomingMessage, res: http.ServerResponse, flags: ReceiveFlags, status: number, io: CliIo): void {
  const answer = req.method !== 'POST' ? 404 : flags.rejectInvalid ? 400 : status;
  res.writeHead(answer, { 'content-type': 'text/plain' }).end('not a webhook (sandbox receive)');
  const headers = `X-${flags.headerPrefix}-Signature, X-${flags.headerPrefix}-Event-Id or webhook-id header`;
  io.err(
    kleur.dim(
      `${clock()} ${shown(req.method ?? '')} ${shown(req.url ?? '/')}: not a webhook (${req.method === 'POST' ? `no ${headers}` : 'only a POST is'}), answered ${answer}`,
    ),
  );
}

/**
 * Answers a body over RECEIVE_BODY_LIMIT 413 and keeps none of it (a 600 MB POST would need 600 MB
 * and end past the longest string Node makes): what is left is read and dropped, up to DRAIN_BYTES
 * or DRAIN_MS, so the client reads the answer, then the connection closes. Not counted, one line on stderr.
 * The answer is written at once, with its length, but ended only once the body is read: Node closes
 * the socket when a `connection: close` answer ends, and a socket closed with unread bytes is reset,
 * which a client still sending can meet (EPIPE) before it has read the answer.
 */
function answerTooLarge(req: http.IncomingMessage, res: http.ServerResponse, io: CliIo): void {
  const limit = `1 MiB (${RECEIVE_BODY_LIMIT} bytes)`;
  const text = `body too large: sandbox receive takes bodies of at most ${limit}`;
  req.removeAllListeners('data');
  res.writeHead(413, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text), connection: 'close' }).write(text);
  let dropped = 0;
  const stop = setTimeout(() => req.destroy(), DRAIN_MS).unref();
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_BYTES) req.destroy();
  });
  req.on('end', () => res.end());
  req.on('close', () => clearTimeout(stop));
  req.resume();
  io.err(kleur.dim(`${clock()} ${shown(req.method ?? '')} ${shown(req.url ?? '/')}: body over ${limit}, answered 413 and not read`));
}

/** Answers a webhook: --status, or 400 to a bad signature with --reject-invalid. */
function answerWebhook(res: http.ServerResponse, view: ReceivedView, flags: ReceiveFlags, status: number): void {
  if (flags.rejectInvalid && !view.signature_valid) {
    res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid signature (sandbox receive --reject-invalid)');
  } else {
    res
      .writeHead(status, { 'content-type': 'text/plain' })
      .end(status < 300 ? 'ok' : `answered ${status} on purpose (sandbox receive --status)`);
  }
}

/** Listens on host:port; a busy port or another failure is a CliError that says what to do. */
function listenOn(server: http.Server | https.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new CliError(
          err.code === 'EADDRINUSE'
            ? `port ${port} is already in use; pass --port 0 or another port`
            : `cannot listen on ${host}:${port}: ${err.message}`,
        ),
      ),
    );
    server.listen(port, host, resolve);
  });
}
