// `sandbox webhooks list|show|replay|retry-failed`: the delivery workbench over the control API;
// `show` gives each attempt the handler refused (400, 401, 403) the signature diagnosis of what it sent.
import type { Command } from 'commander';
import kleur from 'kleur';
import { DELIVERY_STATUSES, orList } from '../domain/vocabularies.js';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import { timeoutFlag } from './flag-checks.js';
import type { CliIo } from './io.js';
import { formatTable } from './table.js';
import { terminalJson, terminalLines, terminalText as shown } from './terminal-text.js';
import type { DeliveryDetailView, DeliveryView, RetryFailedView } from '../views/delivery.js';
import type { ListView } from '../views/list.js';

/** retry-failed draws a progress bar only above this many deliveries. */
export const PROGRESS_THRESHOLD = 20;

const statusColour = (status: string) =>
  status === 'succeeded' ? kleur.green(status) : status === 'failed' ? kleur.red(status) : kleur.yellow(status);
const time = (iso: string | null) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-');

/** A delivery as text: what the merchant's requests stored and the handler answered is escaped (terminal-text.ts). */
function showDelivery(d: DeliveryDetailView): string {
  const lines = [
    `${kleur.bold(d.id)}  ${d.event}  ${d.event_id}`,
    `  url       ${shown(d.url)}`,
    `  status    ${statusColour(d.status)} after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}${d.manual ? ' (manual: never retried by itself)' : ''}`,
    `  next      ${time(d.next_attempt_at)}`,
    `  created   ${time(d.created_at)}`,
    '',
    kleur.bold(`Request (${d.request.note})`),
    `  POST ${shown(d.request.url)}`,
    ...Object.entries(d.request.headers).map(([name, value]) => `  ${kleur.dim(`${shown(name)}:`)} ${shown(value)}`),
    '',
    ...terminalLines(d.request.body)
      .split('\n')
      .map((line) => `  ${line}`),
    '',
    kleur.bold('Attempts'),
  ];
  if (d.attempt_log.length === 0) lines.push('  none yet');
  // As the dashboard's page: a refused attempt's signature check in full once per cause, a repeat in one line.
  const firstOfCause = new Map<string, number>();
  for (const a of d.attempt_log) {
    const answer = a.response_status !== null ? String(a.response_status) : kleur.red(a.error_kind ?? 'error');
    const latency = a.latency_ms === null ? '' : ` ${a.latency_ms}ms`;
    const error = a.error ? kleur.red(` ${shown(a.error)}`) : '';
    const fault = a.fault ? kleur.magenta(` [${a.fault}]`) : '';
    const excerpt = a.response_excerpt ? kleur.dim(` ${terminalJson(a.response_excerpt.slice(0, 80))}`) : '';
    lines.push(`  #${a.attempt} ${time(a.at)} ${answer}${latency}${excerpt}${error}${fault}`);
    const check = a.signature_check;
    if (!check) continue;
    const first = firstOfCause.get(check.cause);
    if (first === undefined) firstOfCause.set(check.cause, a.attempt);
    const why =
      first !== undefined
        ? `as for attempt ${first}`
        : `${shown(check.message)}${check.valid ? '; so the handler computes something else: sandbox verify with the headers, raw body and secret it had says what differs' : ''}`;
    lines.push(`    ${(check.valid ? kleur.yellow : kleur.red)(`signature check (${check.cause}): ${why}`)}`);
  }
  return lines.join('\n');
}

function progressBar(done: number, total: number, succeeded: number, failed: number): string {
  const width = 30;
  const filled = Math.round((done / total) * width);
  return `retrying ${kleur.green('#'.repeat(filled))}${kleur.dim('-'.repeat(width - filled))} ${done}/${total}  ${kleur.green(`${succeeded} delivered`)}, ${kleur.red(`${failed} failed`)}`;
}

/** The flags of `sandbox webhooks retry-failed`. */
type RetryFlags = ClientFlags & { since?: string; wait: boolean; timeout: string };

/** Requeues failed deliveries and, unless --no-wait, waits for their outcomes (exit 1 when any failed again or is pending). */
async function retryFailed(client: ControlClient, flags: RetryFlags, io: CliIo): Promise<void> {
  const timeoutMs = timeoutFlag(flags.timeout, '60s or 5m');
  const body = flags.since ? { since: flags.since } : {};
  if (!flags.wait) {
    const result = await client.post<RetryFailedView>('/deliveries/retry-failed', body);
    io.out(flags.json ? JSON.stringify(result, null, 2) : `requeued ${result.count} failed deliver${result.count === 1 ? 'y' : 'ies'}`);
    return;
  }
  // Subscribe before requeueing so no outcome is missed; outcomes come from the activity stream.
  const outcomes = new RetryOutcomes(io);
  const controller = new AbortController();
  const { streaming } = await openStream(client, outcomes, controller.signal);
  try {
    const result = await client.post<{ count: number; ids: string[] }>('/deliveries/retry-failed', body);
    outcomes.expect(result.ids, !flags.json && result.count > PROGRESS_THRESHOLD);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([outcomes.allDone, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    const { succeeded, failed, done } = outcomes.tally();
    const pending = result.count - done;
    if (flags.json) io.out(JSON.stringify({ count: result.count, ids: result.ids, succeeded, failed, pending }, null, 2));
    else
      io.out(
        `requeued ${result.count} failed deliver${result.count === 1 ? 'y' : 'ies'}: ${succeeded} delivered, ${failed} failed again${pending ? `, ${pending} still pending after ${flags.timeout}` : ''}`,
      );
    // Like `sandbox wait`: a CI step passes only when every requeued delivery got through.
    if (failed > 0 || pending > 0) io.exitCode = 1;
  } finally {
    controller.abort();
    await streaming.catch(() => {});
  }
}

/** Reads the activity stream's delivery attempts into `outcomes`; resolves once the stream is open (`streaming` ends with it). */
async function openStream(client: ControlClient, outcomes: RetryOutcomes, signal: AbortSignal): Promise<{ streaming: Promise<void> }> {
  let streaming: Promise<void> = Promise.resolve();
  await new Promise<void>((opened, failedToOpen) => {
    streaming = client
      .stream(
        (event) => {
          if (event.event !== 'delivery.attempted') return;
          outcomes.attempted(JSON.parse(event.data) as { id: string; status: string });
        },
        signal,
        opened,
      )
      .catch(failedToOpen);
  });
  return { streaming };
}

/** The outcomes of requeued deliveries as the stream reports them, drawn as a progress bar above PROGRESS_THRESHOLD. */
class RetryOutcomes {
  private readonly outcomes = new Map<string, string>();
  private wanted: Set<string> | undefined;
  private lastDrawn = -1;
  private showBar = false;
  private finished: () => void = () => {};
  /** Settles once every requeued delivery succeeded or failed. */
  readonly allDone = new Promise<void>((resolve) => (this.finished = resolve));

  constructor(private readonly io: CliIo) {}

  /** One delivery.attempted of the stream. */
  attempted(data: { id: string; status: string }): void {
    if (data.status !== 'pending') this.outcomes.set(data.id, data.status);
    this.update();
  }

  /** The ids the requeue answered with: the deliveries whose outcomes are awaited. */
  expect(ids: string[], showBar: boolean): void {
    this.wanted = new Set(ids);
    this.showBar = showBar;
    this.update();
  }

  /** How many of the requeued deliveries succeeded and failed so far. */
  tally(): { succeeded: number; failed: number; done: number } {
    let succeeded = 0;
    let failed = 0;
    for (const id of this.wanted ?? []) {
      const status = this.outcomes.get(id);
      if (status === 'succeeded') succeeded++;
      else if (status === 'failed') failed++;
    }
    return { succeeded, failed, done: succeeded + failed };
  }

  private update(): void {
    if (!this.wanted) return;
    const { succeeded, failed, done } = this.tally();
    // A line per tenth of the way, so a log file gets a readable bar too.
    const step = Math.floor((done / this.wanted.size) * 10);
    if (this.showBar && step !== this.lastDrawn) {
      this.lastDrawn = step;
      this.io.err(progressBar(done, this.wanted.size, succeeded, failed));
    }
    if (done === this.wanted.size) this.finished();
  }
}

/** Adds `sandbox webhooks ...`. */
export function addWebhooksCommand(program: Command, io: CliIo): void {
  const webhooks = program.command('webhooks').description('inspect, replay and retry webhook deliveries of a running sandbox');
  addListCommand(webhooks, io);
  addShowCommand(webhooks, io);
  addReplayCommand(webhooks, io);
  addRetryFailedCommand(webhooks, io);
}

/** `sandbox webhooks list`: a table of deliveries, newest first. */
function addListCommand(webhooks: Command, io: CliIo): void {
  clientOptions(webhooks.command('list').description('list deliveries, newest first'))
    .option('--status <status>', orList(DELIVERY_STATUSES))
    .option('--event <type>', 'only this event type, e.g. payment.authorized')
    .option('--event-id <id>', 'only deliveries of this event')
    .option('--since <when>', 'created within a duration (10m, 1h) or since an ISO time')
    .option('--limit <n>', 'at most this many', '50')
    .action(async (flags: ClientFlags & { status?: string; event?: string; eventId?: string; since?: string; limit: string }) => {
      const client = new ControlClient(flags);
      const page = await client.get<ListView<DeliveryView>>('/deliveries', {
        status: flags.status,
        event: flags.event,
        event_id: flags.eventId,
        since: flags.since,
        limit: flags.limit,
      });
      if (flags.json) return io.out(terminalJson(page.data, 2));
      if (page.data.length === 0) return io.out('no deliveries match');
      io.out(
        formatTable(
          ['ID', 'EVENT', 'EVENT ID', 'URL', 'STATUS', 'ATTEMPTS', 'LAST', 'NEXT ATTEMPT'],
          page.data.map((d) => [
            d.id,
            d.event,
            d.event_id,
            d.url,
            d.status,
            d.attempts,
            d.last_response_status ?? (d.last_error ? 'error' : null),
            time(d.next_attempt_at),
          ]),
        ),
      );
      if (page.has_more) io.out(kleur.dim(`more: --limit ${Number(flags.limit) * 2}, or narrow with --status/--event/--since`));
    });
}

/** `sandbox webhooks show`: one delivery's request and attempts. */
function addShowCommand(webhooks: Command, io: CliIo): void {
  clientOptions(webhooks.command('show <delivery-id>').description('the exact request and every attempt of one delivery')).action(
    async (id: string, flags: ClientFlags) => {
      const delivery = await new ControlClient(flags).get<DeliveryDetailView>(`/deliveries/${encodeURIComponent(id)}`);
      io.out(flags.json ? terminalJson(delivery, 2) : showDelivery(delivery));
    },
  );
}

/** `sandbox webhooks replay`: an event sent again as a new manual delivery. */
function addReplayCommand(webhooks: Command, io: CliIo): void {
  clientOptions(
    webhooks
      .command('replay <id>')
      .description('send an event again (by delivery id whd_... or event id evt_...) as a new manual delivery'),
  )
    .option('--to <url>', 'send it to this URL instead')
    .action(async (id: string, flags: ClientFlags & { to?: string }) => {
      const path = id.startsWith('evt_') ? `/events/${encodeURIComponent(id)}/replay` : `/deliveries/${encodeURIComponent(id)}/replay`;
      const delivery = await new ControlClient(flags).post<DeliveryView>(path, flags.to ? { to: flags.to } : {});
      io.out(
        flags.json
          ? JSON.stringify(delivery, null, 2)
          : `replaying ${delivery.event} ${delivery.event_id} as ${kleur.bold(delivery.id)} -> ${delivery.url} (fresh signature; a manual delivery is tried once, never retried)`,
      );
    });
}

/** `sandbox webhooks retry-failed`. */
function addRetryFailedCommand(webhooks: Command, io: CliIo): void {
  clientOptions(
    webhooks
      .command('retry-failed')
      .description('requeue failed deliveries and wait for their outcome; exit 1 when any failed again or is still pending at --timeout'),
  )
    .option('--since <when>', 'only deliveries created within a duration (1h) or since an ISO time')
    .option('--no-wait', 'requeue and return at once')
    .option('--timeout <duration>', 'how long to wait for the outcome', '60s')
    .action(async (flags: RetryFlags) => retryFailed(new ControlClient(flags), flags, io));
}
