// `sandbox send`: POSTs a body of your own to a URL once, signed exactly as the delivery worker
// signs a webhook (buildWebhookRequest: the same headers, the same code), and prints the answer; for
// a handler's unit fixtures, or to replay a production payload. With --secret it signs in this
// process; with --merchant or --endpoint the sandbox at --url signs it (POST
// /_sandbox/signatures/sign) with that one's secret, mode and header prefix, so the secret never
// leaves the sandbox nor shows in a process list. The POST goes from this process, not through the
// sandbox's outbox: nothing is recorded or retried.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import kleur from 'kleur';
import { HEADER_VALUE_PATTERN } from '../contracts/patterns.js';
import { formatDuration } from '../domain/duration.js';
import { newId } from '../domain/ids.js';
import { orList, SIGNATURE_MODES, type SignatureMode } from '../domain/vocabularies.js';
import { controlTargetRefusal } from '../runtime/machine-names.js';
import type { SignedHeadersView } from '../views/signature-diagnosis.js';
import { postWebhook, type PostResult } from '../webhooks/delivery/http-sender.js';
import { buildWebhookRequest } from '../webhooks/webhook-request.js';
import type { CliIo } from './io.js';
import { CliError } from './cli-error.js';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import { signatureModeFlag, timeoutFlag } from './flag-checks.js';
import { terminalJson, terminalLines, terminalText as shown } from './terminal-text.js';
import { bodyOf } from './verify.js';

/** The longest --timeout send takes: a webhook receiver answers in seconds, and a wait past Node's timer limit (24.8 days) would end at once. */
const SEND_TIMEOUT_MAX_MS = 10 * 60_000;

interface SendFlags extends ClientFlags {
  to?: string;
  body?: string;
  eventType?: string;
  eventId?: string;
  contentType?: string;
  signature?: string;
  secret?: string;
  secretFile?: string;
  merchant?: string;
  endpoint?: string;
  headerPrefix?: string;
  timeout: string;
  verbose?: boolean;
}

/** What the headers say of the body: its event type and id, and its content type. */
interface Described {
  eventType: string;
  eventId: string | undefined;
  contentType: string;
}

/** The --to URL, refused before anything is sent when it is no http(s) URL or the control API of a sandbox here. */
async function targetOf(flags: SendFlags): Promise<URL> {
  if (flags.to === undefined)
    throw new CliError('--to is missing: give the URL of your webhook handler, such as http://127.0.0.1:3000/webhooks');
  const url = URL.canParse(flags.to) ? new URL(flags.to) : undefined;
  if (!url || !/^https?:$/.test(url.protocol))
    throw new CliError(`--to must be an http(s) URL such as http://127.0.0.1:3000/webhooks, got "${flags.to}"`);
  const host = URL.canParse(flags.url) ? new URL(flags.url).hostname : '127.0.0.1';
  const refused = await controlTargetRefusal(url, { host, publicUrl: undefined });
  if (refused !== undefined) throw new CliError(`--to ${refused.replace(/^not sent: the URL /, '')}`);
  return url;
}

/** A flag that becomes a header value: printable ASCII on one line, or node:http would refuse to send it. */
function headerFlag(flag: string, value: string | undefined): string | undefined {
  if (value !== undefined && !new RegExp(HEADER_VALUE_PATTERN).test(value))
    throw new CliError(`${flag} goes into a header: give printable ASCII on one line, got ${JSON.stringify(value)}`);
  return value;
}

/** The event type, id and content type: the flags', else what a JSON envelope ({"event", "id", ...}) says. */
function describe(flags: SendFlags, body: string): Described {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  const envelope = json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const eventType = headerFlag('--event-type', flags.eventType ?? text(envelope.event));
  if (eventType === undefined)
    throw new CliError('--event-type is missing: the body names no "event" of its own; give --event-type, such as payment.captured');
  return {
    eventType,
    eventId: headerFlag('--event-id', flags.eventId ?? text(envelope.id)),
    contentType:
      headerFlag('--content-type', flags.contentType) ?? (json === undefined ? 'application/x-www-form-urlencoded' : 'application/json'),
  };
}

/** The secret of --secret or --secret-file (without the one line ending a file ends with). */
function localSecret(flags: SendFlags): string {
  let secret = flags.secret;
  if (flags.secretFile !== undefined) {
    try {
      secret = readFileSync(flags.secretFile, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      throw new CliError(
        `--secret-file ${flags.secretFile} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}): give the file the secret is in`,
      );
    }
  }
  if (!secret) throw new CliError('--secret is empty: give the webhook signing secret, such as whsec_test_sandbox');
  return secret;
}

/** Checks that exactly one of --secret, --secret-file, --merchant, --endpoint says whose secret signs. */
function checkSigner(flags: SendFlags): void {
  const given = (['secret', 'secretFile', 'merchant', 'endpoint'] as const)
    .filter((key) => flags[key] !== undefined)
    .map((key) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
  if (given.length === 0)
    throw new CliError(
      'no secret to sign with: give --secret S (or --secret-file FILE), or --merchant mer_... or --endpoint we_... to have the sandbox at --url sign with theirs',
    );
  if (given.length > 1) throw new CliError(`${given.join(' and ')} do not go together: give one of them, whose secret signs the body`);
  if (flags.headerPrefix !== undefined && (flags.merchant !== undefined || flags.endpoint !== undefined))
    throw new CliError(
      '--header-prefix goes with --secret: with --merchant or --endpoint the sandbox signs in its own X-<prefix>- headers',
    );
}

/** The signed headers, as the delivery worker builds them: here with --secret, else by the sandbox at --url. */
async function signedHeaders(
  flags: SendFlags,
  body: string,
  what: Described,
  mode: SignatureMode | undefined,
): Promise<Record<string, string>> {
  if (flags.merchant === undefined && flags.endpoint === undefined) {
    const delivery = {
      id: newId('whd'),
      eventId: what.eventId ?? newId('evt'),
      eventType: what.eventType,
      url: '',
      contentType: what.contentType,
      body,
    };
    const prefix = flags.headerPrefix ?? 'Sandbox';
    const signing = { mode: mode ?? 'plain', secrets: [localSecret(flags)] };
    return buildWebhookRequest(delivery, 1, { headerPrefix: prefix }, signing, Math.floor(Date.now() / 1000)).headers;
  }
  const answer = await new ControlClient(flags).post<SignedHeadersView>('/signatures/sign', {
    ...(flags.merchant === undefined ? { endpoint_id: flags.endpoint } : { merchant_id: flags.merchant }),
    event_type: what.eventType,
    ...(what.eventId === undefined ? {} : { event_id: what.eventId }),
    content_type: what.contentType,
    body,
    ...(mode === undefined ? {} : { signature: mode }),
  });
  return answer.headers;
}

/** Adds `sandbox send`. */
export function addSendCommand(program: Command, io: CliIo): void {
  clientOptions(
    program
      .command('send')
      .description('POST a body of your own to a URL once, signed exactly as the sandbox signs its webhooks, and print the answer'),
  )
    .option('--to <url>', 'the URL of your webhook handler, such as http://127.0.0.1:3000/webhooks')
    .option('--body <file>', 'the file holding the body, sent byte for byte; - or none: standard input')
    .option('--event-type <type>', 'the X-Sandbox-Event-Type header (default: the "event" of a JSON body)')
    .option('--event-id <id>', 'the event id the headers carry (default: the "id" of a JSON body, else a new evt_...)')
    .option('--content-type <type>', 'default: application/json for a JSON body, else application/x-www-form-urlencoded')
    .option('--signature <mode>', `${orList(SIGNATURE_MODES)} (default: plain with --secret, the endpoint's or sandbox's mode otherwise)`)
    .option('--secret <secret>', 'sign with this secret, here (it shows in a process list: prefer --secret-file, --merchant or --endpoint)')
    .option('--secret-file <file>', 'sign with the secret in this file (one line ending at its end is dropped)')
    .option('--merchant <id>', "have the sandbox at --url sign with this merchant's webhook secret, in its --signature mode")
    .option('--endpoint <id>', "have the sandbox at --url sign with this registered endpoint's secret, in the endpoint's mode")
    .option('--header-prefix <name>', 'with --secret: the word in X-<name>-Signature (default Sandbox)')
    .option('--timeout <duration>', `how long to wait for the answer (at most ${formatDuration(SEND_TIMEOUT_MAX_MS)})`, '10s')
    .option('--verbose', 'print the request headers sent and the response headers too')
    .action((flags: SendFlags) => runSend(flags, io));
}

async function runSend(flags: SendFlags, io: CliIo): Promise<void> {
  checkSigner(flags);
  const mode = flags.signature === undefined ? undefined : signatureModeFlag(flags.signature);
  const timeoutMs = timeoutFlag(flags.timeout, '10s or 1m', SEND_TIMEOUT_MAX_MS);
  const url = await targetOf(flags);
  const body = await bodyOf(flags.body, io);
  const headers = await signedHeaders(flags, body, describe(flags, body), mode);
  const result = await postWebhook({ url: url.href, headers, body }, timeoutMs);
  io.out(flags.json ? terminalJson(jsonView(url, headers, result), 2) : printable(url, headers, result, flags.verbose));
  if (result.status === null || result.status < 200 || result.status > 299) io.exitCode = 1;
}

/** The --json answer: what was sent (headers) and what came back. */
function jsonView(url: URL, headers: Record<string, string>, r: PostResult) {
  return {
    to: url.href,
    request: { headers },
    status: r.status,
    headers: r.headers,
    body: r.body,
    latency_ms: r.latencyMs,
    error: r.status !== null ? null : { kind: r.errorKind, message: r.errorMessage },
  };
}

function printable(url: URL, headers: Record<string, string>, r: PostResult, verbose = false): string {
  const lines: string[] = [];
  // The answer's headers and body are the handler's bytes: escaped, so none can repaint the terminal (terminal-text.ts).
  const header = ([name, value]: [string, string]) => shown(`${name}: ${value}`);
  if (verbose) lines.push(`> POST ${url.href}`, ...Object.entries(headers).map((h) => `> ${header(h)}`));
  if (r.status === null) return [...lines, kleur.red(shown(`no answer: ${r.errorKind} (${r.errorMessage})`))].join('\n');
  const ok = r.status >= 200 && r.status < 300;
  lines.push(`${verbose ? '< ' : ''}${(ok ? kleur.green : kleur.red)(`HTTP ${r.status}`)} ${kleur.dim(`(${Math.round(r.latencyMs)}ms)`)}`);
  if (verbose) lines.push(...Object.entries(r.headers ?? {}).map((h) => `< ${header(h)}`));
  if (r.body) lines.push(terminalLines(r.body));
  return lines.join('\n');
}
