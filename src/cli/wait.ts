// `sandbox wait --event payment.authorized [--to URL] [--status succeeded] [--timeout 30s]`: for CI
// scripts. Polls the control API's delivery list; exits 0 once such a delivery is found, and 1
// after the timeout (or at once when every matching delivery failed for good), printing the
// deliveries it did see. An unknown event name is refused before any request. With --ready-file
// it first waits for the sandbox that file names to answer (ready-file.ts), and without --event
// that is all it waits for: it prints the URL.
import type { Command } from 'commander';
import { unknownEventProblem } from '../domain/event-types.js';
import { DELIVERY_WAIT_STATUSES, orList, type DeliveryWaitStatus } from '../domain/vocabularies.js';
import { CliError } from './cli-error.js';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import { timeoutFlag } from './flag-checks.js';
import type { CliIo } from './io.js';
import { waitForReadyFile } from './ready-file.js';
import { deliveryLine as sharedDeliveryLine, waitForDelivery } from '../client/delivery-wait.js';
import type { DeliveryView } from '../views/delivery.js';
import type { ListView } from '../views/list.js';
import { terminalJson, terminalText } from './terminal-text.js';

/** The fields of a delivery that wait prints. */
type DeliveryItem = Pick<DeliveryView, 'id' | 'event' | 'url' | 'status' | 'attempts' | 'last_response_status' | 'last_error'>;

/** What each --status waits for, for the help. */
const WAITS_FOR: Record<DeliveryWaitStatus, string> = { succeeded: '2xx received', failed: 'retries exhausted', any: 'queued at all' };
const SHOWN = 20;

/** One line per delivery: id, event, target, status, attempts and the last answer. */
export function deliveryLine(d: DeliveryItem): string {
  // The URL and a handler's error came from the network: escaped (terminal-text.ts).
  return terminalText(sharedDeliveryLine(d));
}

/** The flags of `sandbox wait`. */
type WaitFlags = ClientFlags & { event?: string; readyFile?: string; to?: string; status: string; timeout: string };

/** Adds `sandbox wait`. */
export function addWaitCommand(program: Command, io: CliIo): void {
  clientOptions(
    program
      .command('wait')
      .description(
        'wait until a webhook of an event was delivered (exit 0), or time out (exit 1) listing what arrived; with --ready-file, first until the sandbox it names answers',
      )
      .option('--event <type>', 'the event type, e.g. payment.authorized')
      .option(
        '--ready-file <file>',
        'first wait until this file (from sandbox start --ready-file) names a sandbox that answers, and use that sandbox; without --event, print its URL and exit 0',
      )
      .option('--to <webhook-url>', 'only deliveries to this exact webhook URL')
      .option('--status <status>', orList(DELIVERY_WAIT_STATUSES.map((status) => `${status} (${WAITS_FOR[status]})`)), 'succeeded')
      .option('--timeout <duration>', 'how long to wait, e.g. 30s or 2m', '30s'),
  ).action((flags: WaitFlags) => runWait(flags, io));
}

/** The timeout in milliseconds, once every flag was checked (before any request). */
function checkFlags(flags: WaitFlags): number {
  const timeoutMs = timeoutFlag(flags.timeout, '30s or 2m');
  if (!(DELIVERY_WAIT_STATUSES as readonly string[]).includes(flags.status))
    throw new CliError(`--status must be ${orList(DELIVERY_WAIT_STATUSES)}, got "${flags.status}"`);
  if (flags.event === undefined && flags.readyFile === undefined)
    throw new CliError(
      'give --event TYPE to wait for a webhook, or --ready-file FILE to wait for the sandbox started with --ready-file FILE',
    );
  // A misspelt event would never arrive: refuse it now rather than after the whole timeout.
  const unknown = flags.event === undefined ? undefined : unknownEventProblem('--event', flags.event);
  if (unknown) throw new CliError(unknown);
  return timeoutMs;
}

/** Waits for the sandbox of --ready-file, then for the delivery; prints it, or what did arrive (exit 1). */
async function runWait(flags: WaitFlags, io: CliIo): Promise<void> {
  const timeoutMs = checkFlags(flags);
  const deadline = Date.now() + timeoutMs;
  if (flags.readyFile !== undefined) {
    flags.url = await waitForReadyFile(flags.readyFile, deadline, flags.controlToken);
    if (flags.event === undefined) {
      io.out(flags.json ? JSON.stringify({ url: flags.url }) : flags.url);
      return;
    }
  }
  const client = new ControlClient(flags);
  const wanted = { event: flags.event, url: flags.to, status: flags.status as DeliveryWaitStatus };
  const outcome = await waitForDelivery(client, wanted, deadline);
  if (outcome.found) {
    io.out(flags.json ? terminalJson({ found: true, delivery: outcome.found }, 2) : `found: ${deliveryLine(outcome.found)}`);
    return;
  }
  const { failedForGood } = outcome;
  await reportMissing(client, flags, io, { failedForGood, timeoutMs });
}

/** Says why no delivery was found, with the deliveries that did arrive: of the event first; when there are none, whatever there is. */
async function reportMissing(
  client: ControlClient,
  flags: WaitFlags,
  io: CliIo,
  outcome: { failedForGood: boolean; timeoutMs: number },
): Promise<void> {
  const filter = { event: flags.event, url: flags.to };
  let seen = (await client.get<ListView<DeliveryView>>('/deliveries', { ...filter, limit: SHOWN })).data;
  let scope = `of ${flags.event}${flags.to ? ` to ${flags.to}` : ''}`;
  if (seen.length === 0) {
    seen = (await client.get<ListView<DeliveryView>>('/deliveries', { limit: SHOWN })).data;
    scope = 'of any event';
  }
  io.exitCode = 1;
  if (flags.json) {
    io.out(terminalJson({ found: false, failed_for_good: outcome.failedForGood, timeout_ms: outcome.timeoutMs, seen }, 2));
    return;
  }
  const wanted = `${flags.status === 'any' ? '' : `${flags.status} `}delivery of ${flags.event}${flags.to ? ` to ${flags.to}` : ''}`;
  const lines = seen.length ? seen.map((d) => `  ${deliveryLine(d)}`) : ['  none'];
  const why = outcome.failedForGood
    ? `no ${wanted} will come: every one failed for good (no retries left)`
    : `no ${wanted} within ${flags.timeout}`;
  io.err([`${why}; deliveries ${scope}, newest first (${seen.length}${seen.length === SHOWN ? '+' : ''}):`, ...lines].join('\n'));
}
