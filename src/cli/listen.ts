// `sandbox listen`: a live tail of events and delivery attempts from /_sandbox/stream, optionally
// forwarding each event, re-signed with --secret, to a local URL (like `stripe listen --forward-to`).
// --count N stops after N events, once each webhook of the Nth has had its first attempt, so
// `listen --count 1` shows one event and what became of its webhooks.
import type { Command } from 'commander';
import kleur from 'kleur';
import { signatureHeaders } from '../signatures/signing.js';
import { orList, SIGNATURE_MODES, type SignatureMode } from '../domain/vocabularies.js';
import { CliError } from './cli-error.js';
import { ControlClient, clientOptions, type ClientFlags, type StreamEvent } from './control-client.js';
import { countFlag, signatureModeFlag } from './flag-checks.js';
import type { CliIo } from './io.js';
import type { ControlEventDetailView } from '../views/event.js';
import { terminalJson, terminalText } from './terminal-text.js';
import { present, errorMessage } from '../errors.js';

interface ListenFlags extends ClientFlags {
  events?: string;
  forwardTo?: string;
  secret: string;
  headerPrefix: string;
  signature: string;
  count?: string;
}

/** True when `type` matches one of the patterns ("payment.authorized" or "payment.*"). */
export function matchesEvents(patterns: string[], type: string): boolean {
  if (patterns.length === 0) return true;
  return patterns.some((p) => (p.endsWith('*') ? type.startsWith(p.slice(0, -1)) : p === type));
}

const clock = (iso: string) => iso.slice(11, 23);

/** POSTs an event's payload to `url` (--forward-to), signed the way the sandbox signs webhooks. */
async function forward(
  event: ControlEventDetailView,
  url: string,
  flags: ListenFlags,
): Promise<{ status: number | null; error: string | null }> {
  const timestamp = Math.floor(Date.now() / 1000);
  const prefix = `x-${flags.headerPrefix.toLowerCase()}`;
  const body: string = event.payload.body;
  try {
    const res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': event.payload.content_type,
        ...signatureHeaders({
          mode: flags.signature as SignatureMode,
          secrets: [flags.secret],
          prefix: flags.headerPrefix,
          id: event.id,
          timestamp,
          body,
        }),
        [`${prefix}-event-id`]: event.id,
        [`${prefix}-event-type`]: event.event,
        [`${prefix}-timestamp`]: String(timestamp),
      },
      body,
      signal: AbortSignal.timeout(5000),
    });
    await res.arrayBuffer();
    return { status: res.status, error: null };
  } catch (err) {
    return { status: null, error: errorMessage(err) };
  }
}

/** Adds `sandbox listen`. */
export function addListenCommand(program: Command, io: CliIo): void {
  clientOptions(program.command('listen').description('live tail of events and webhook attempts; optionally forward events to a local URL'))
    .option('--events <types>', 'only these event types, comma-separated; "payment.*" matches a family')
    .option('--forward-to <url>', 'POST each event, re-signed with --secret, to this URL')
    .option('--secret <secret>', 'the signing secret for --forward-to', 'whsec_test_sandbox')
    .option('--header-prefix <name>', 'the word in X-<name>-Signature of forwarded events', 'Sandbox')
    .option('--signature <mode>', `${orList(SIGNATURE_MODES)}, for forwarded events`, 'plain')
    .option('--count <n>', 'stop after this many events, once each webhook of the last one has had its first attempt')
    .action((flags: ListenFlags) => runListen(flags, io));
}

/** Tails the stream until Ctrl-C, or until --count events and the first attempts of the last one's webhooks were shown. */
async function runListen(flags: ListenFlags, io: CliIo): Promise<void> {
  signatureModeFlag(flags.signature);
  if (flags.forwardTo && !/^https?:\/\/[^\s/]+/.test(flags.forwardTo))
    throw new CliError(`--forward-to must be an http(s) URL such as http://127.0.0.1:3000/webhooks, got "${flags.forwardTo}"`);
  const limit = countFlag(flags.count);
  const patterns = (flags.events ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const client = new ControlClient(flags);
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  const tail = new Tail(client, flags, io, patterns, limit, stop);
  try {
    await client.stream(
      (event) => tail.take(event),
      controller.signal,
      () =>
        io.err(
          kleur.dim(
            `listening to ${client.base}${patterns.length ? ` for ${patterns.join(', ')}` : ''}${flags.forwardTo ? `, forwarding to ${flags.forwardTo}` : ''} (Ctrl-C to stop)`,
          ),
        ),
    );
  } finally {
    process.off('SIGINT', stop);
  }
}

/** One item of the stream as parsed that listen shows: an event.created or a delivery.attempted. */
type StreamItem = EventCreatedItem | DeliveryAttemptedItem;

/** The stream's event.created item. */
interface EventCreatedItem {
  kind: 'event.created';
  at: string;
  id: string;
  event: string;
  resource_id: string;
}

/** The stream's delivery.attempted item (an attempt's outcome; error and fault only when there is one). */
interface DeliveryAttemptedItem {
  kind: 'delivery.attempted';
  at: string;
  id: string;
  event_id: string;
  event: string;
  url: string;
  attempt: number;
  status: string;
  response_status: number | null;
  latency_ms: number;
  error?: string;
  fault?: string;
}

/** What listen shows of the stream: the matching events (forwarded with --forward-to) and their delivery attempts. */
class Tail {
  private seen = 0;
  /** Once --count events were seen: the deliveries of the last one still waiting for their first attempt. */
  private awaiting: Set<string> | undefined;

  constructor(
    private readonly client: ControlClient,
    private readonly flags: ListenFlags,
    private readonly io: CliIo,
    private readonly patterns: string[],
    private readonly limit: number,
    private readonly stop: () => void,
  ) {}

  /** Shows one stream event, if it is an event or attempt of a matching type. */
  async take({ event: kind, data }: StreamEvent): Promise<void> {
    const item = JSON.parse(data) as StreamItem;
    const type = kind === 'event.created' || kind === 'delivery.attempted' ? item.event : undefined;
    if (type === undefined || !matchesEvents(this.patterns, type)) return;
    if (item.kind === 'event.created') return this.created(item, type);
    if (this.awaiting && !this.awaiting.has(item.id)) return;
    if (this.flags.json) {
      this.io.out(terminalJson(item));
    } else {
      // The URL and a handler's error came from the network: escaped (terminal-text.ts).
      const answer = item.response_status ?? kleur.red(terminalText(String(item.error ?? 'error')));
      const fault = item.fault ? kleur.magenta(` [${item.fault}]`) : '';
      this.io.out(
        `${kleur.dim(clock(item.at))}   ${kleur.magenta('webhook')} ${type} ${item.event_id} -> ${terminalText(String(item.url))} #${item.attempt} ${answer} ${kleur.dim(`${item.latency_ms}ms`)} ${item.status}${fault}`,
      );
    }
    if (this.awaiting?.delete(item.id) && this.awaiting.size === 0) this.stop();
  }

  /** An event: shown (and forwarded); the last of --count starts the wait for its deliveries' first attempts. */
  private async created(item: EventCreatedItem, type: string): Promise<void> {
    const { flags, io } = this;
    if (this.awaiting) return;
    const last = this.seen + 1 >= this.limit;
    const detail =
      flags.forwardTo || last ? await this.client.get<ControlEventDetailView>(`/events/${encodeURIComponent(item.id)}`) : undefined;
    const forwarded = flags.forwardTo ? await forward(present(detail, `event ${item.id}`), flags.forwardTo, flags) : undefined;
    if (flags.json) io.out(terminalJson({ ...item, ...(forwarded ? { forwarded } : {}) }));
    else {
      const answer = !forwarded
        ? ''
        : forwarded.status === null
          ? kleur.red(`failed: ${terminalText(String(forwarded.error))}`)
          : (forwarded.status < 300 ? kleur.green : kleur.red)(String(forwarded.status));
      io.out(
        `${kleur.dim(clock(item.at))} ${kleur.bold(type)} ${item.id} ${kleur.dim(terminalText(String(item.resource_id)))}${forwarded ? `  forwarded -> ${flags.forwardTo} ${answer}` : ''}`,
      );
    }
    this.seen++;
    if (last) {
      // Every attempt comes on the stream after its event.created, so none of these is missed.
      this.awaiting = new Set(present(detail, `event ${item.id}`).deliveries.map((d) => d.id));
      if (this.awaiting.size === 0) this.stop();
    }
  }
}
