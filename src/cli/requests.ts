// `sandbox requests` prints the request journal (oldest first, like a log; --tail keeps printing
// new requests as they come), `sandbox requests expect` checks that the merchant sent a request
// and exits 1 with the near misses when it did not (for test suites in any language), and
// `sandbox trace ID` prints one payment's timeline. All read the control API (docs/journal.md).
import type { Command } from 'commander';
import kleur from 'kleur';
import { CliError } from './cli-error.js';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import type { CliIo } from './io.js';
import type { RequestFilter } from '../library/start-sandbox.js';
import { terminalJson, terminalLines, terminalText } from './terminal-text.js';
import type { ExpectationResultView, JournalEntryView } from '../views/journal.js';
import type { ListView } from '../views/list.js';
import type { TimelineItemView, TimelineView } from '../views/timeline.js';

/** How often --tail asks for newer requests. */
const TAIL_POLL_MS = 500;

/** The list filters, as flags: the library's requests() filter, with --limit as typed, --tail and --count. */
type ListFlags = ClientFlags &
  Omit<RequestFilter, 'limit'> & {
    limit: string;
    tail?: boolean;
    count?: string;
  };

const time = (iso: string) => iso.replace('T', ' ').replace(/Z$/, '');

/** One line per request: sandbox time, method, path, status, duration, merchant, idempotency key. */
export function requestLine(e: JournalEntryView): string {
  const status = e.status >= 500 ? kleur.red(e.status) : e.status >= 400 ? kleur.yellow(e.status) : kleur.green(e.status);
  const query = e.query ? `?${e.query}` : '';
  const extras = [
    e.merchant_id ?? '-',
    e.idempotency_key ? `key=${e.idempotency_key}` : '',
    e.fault ? `fault=${e.fault}` : '',
    e.script ? `(${e.script})` : '',
  ].filter(Boolean);
  // The path, query, key and the rest came from whoever sent the request: escaped (terminal-text.ts).
  return `${time(e.at)}  ${e.id}  ${terminalText(e.method.padEnd(6))} ${terminalText(`${e.path}${query}`)}  ${status}  ${e.duration_ms.toFixed(1)}ms  ${terminalText(extras.join('  '))}`;
}

function listQuery(flags: ListFlags): Record<string, string | undefined> {
  return {
    method: flags.method,
    path: flags.path,
    status: flags.status,
    merchant: flags.merchant,
    payment: flags.payment,
    idempotency_key: flags.idempotencyKey,
    since: flags.since,
    limit: flags.limit,
  };
}

/** Prints the newest requests oldest first; with --tail, then every newer one until interrupted. */
async function runList(flags: ListFlags, io: CliIo): Promise<void> {
  if (flags.count !== undefined && !(flags.tail && /^[1-9]\d{0,5}$/.test(flags.count)))
    throw new CliError(`--count goes with --tail (or expect) and is a whole number from 1, such as 1; got "${flags.count}"`);
  const client = new ControlClient(flags);
  const query = listQuery(flags);
  // With --count, --tail stops after that many new requests.
  let left = flags.count === undefined ? Number.POSITIVE_INFINITY : Number(flags.count);
  const print = (entries: JournalEntryView[], fresh = true) => {
    for (const e of entries) {
      if (fresh && left <= 0) return;
      io.out(flags.json && flags.tail ? terminalJson(e) : requestLine(e));
      if (fresh) left--;
    }
  };
  const { data } = await client.get<ListView<JournalEntryView>>('/requests', query);
  const oldestFirst = [...data].reverse();
  if (flags.json && !flags.tail) return io.out(terminalJson(data, 2));
  if (!flags.tail && data.length === 0) return io.out('no requests kept that match');
  print(oldestFirst, false);
  if (!flags.tail) return;
  let newest = data[0]?.id;
  while (left > 0) {
    await new Promise((resolve) => setTimeout(resolve, TAIL_POLL_MS));
    if (newest === undefined) {
      // Nothing seen yet: the first page there is.
      const first = await client.get<ListView<JournalEntryView>>('/requests', query);
      print([...first.data].reverse());
      newest = first.data[0]?.id ?? newest;
      continue;
    }
    // The requests newer than the newest seen, a page at a time (ending_before pages toward the newest).
    for (;;) {
      const page = await client.get<ListView<JournalEntryView>>('/requests', { ...query, limit: '100', ending_before: newest });
      if (page.data.length === 0 || left <= 0) break;
      print([...page.data].reverse());
      newest = page.data[0]?.id ?? newest;
      if (!page.has_more) break;
    }
  }
}

/** The flags of `sandbox requests expect`. */
type ExpectFlags = ClientFlags & {
  method?: string;
  path?: string;
  body?: string;
  header: string[];
  count?: string;
  merchant?: string;
  since?: string;
};

/** The expectation the flags describe, checked before any request. */
export function expectationOf(flags: ExpectFlags): Record<string, unknown> {
  const expectation: Record<string, unknown> = {};
  if (flags.method) expectation.method = flags.method;
  if (flags.path) expectation.path = flags.path;
  if (flags.body !== undefined) {
    try {
      expectation.body = JSON.parse(flags.body);
    } catch {
      throw new CliError(`--body must be JSON such as '{"amount":1050}', got ${JSON.stringify(flags.body)}`);
    }
  }
  if (flags.header.length > 0) {
    const headers: Record<string, string> = {};
    for (const header of flags.header) {
      const colon = header.indexOf(':');
      if (colon <= 0) throw new CliError(`--header must be "Name: value" such as "Idempotency-Key: order-7", got "${header}"`);
      headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    }
    expectation.headers = headers;
  }
  if (flags.count !== undefined) {
    if (!/^\d{1,6}$/.test(flags.count))
      throw new CliError(`--count must be a whole number such as 1 (0: none was sent), got "${flags.count}"`);
    expectation.count = Number(flags.count);
  }
  if (flags.merchant) expectation.merchant = flags.merchant;
  if (flags.since) expectation.since = flags.since;
  return expectation;
}

/** Checks the expectation; prints the verdict and sets exit code 1 when it fails. */
async function runExpect(flags: ExpectFlags, io: CliIo): Promise<void> {
  const expectation = expectationOf(flags);
  const result = await new ControlClient(flags).post<ExpectationResultView>('/requests/expect', expectation);
  // The near misses quote the requests' bodies: escaped, their line breaks kept.
  const message = terminalLines(result.message);
  io.out(flags.json ? terminalJson(result, 2) : result.ok ? kleur.green(message) : message);
  if (!result.ok) io.exitCode = 1;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Adds `sandbox requests`, `sandbox requests expect` and `sandbox trace`. */
export function addRequestsCommand(program: Command, io: CliIo): void {
  const requests = clientOptions(
    program
      .command('requests')
      .description('print the request journal: every request the sandbox answered, masked, oldest first; --tail keeps printing new ones')
      .option('--method <method>', 'only this HTTP method, e.g. POST')
      .option('--path <path>', 'only this path, or a pattern where * matches anything, e.g. /v1/payments/*/capture')
      .option('--status <status>', 'only this status, e.g. 402, or a class, e.g. 4xx')
      .option('--merchant <id>', 'only this merchant, e.g. mer_sandbox')
      .option('--payment <id>', 'only requests that touched this payment (transID or pay_ id), its session, refunds and chargebacks')
      .option('--idempotency-key <key>', 'only requests with this Idempotency-Key')
      .option('--since <when>', 'only requests since this sandbox time: an ISO time, or a duration ago such as 10m')
      .option('--limit <n>', 'at most this many of the newest', '50')
      .option('--tail', 'then keep printing new requests until interrupted (with --json: one JSON object a line)')
      .option('--count <n>', 'with --tail: stop after this many new requests; with expect: exactly this many must match (0: none)'),
  ).action((flags: ListFlags) => runList(flags, io));

  // The filters, --count, --url and --json are the `requests` command's, which parses them wherever
  // they stand (as `clock advance` does); expect adds what only it takes.
  requests
    .command('expect')
    .description('check that the merchant sent a request (partial body match); exit 1 listing the closest requests and what differs')
    .configureHelp({ showGlobalOptions: true })
    .option('--body <json>', 'a partial JSON body: every field given must be in the request with this value')
    .option('--header <header>', 'a header the request must carry, "Name: value" (repeatable)', collect, [])
    .action((_flags: unknown, command: Command) => runExpect(command.optsWithGlobals<ExpectFlags>(), io));

  clientOptions(
    program
      .command('trace <id>')
      .description(
        "print one payment's timeline: its requests, state changes and their causes, webhook attempts (id: transID, pay_ id, or its session, refund or chargeback)",
      ),
  ).action(async (id: string, flags: ClientFlags) => {
    const timeline = await new ControlClient(flags).get<TimelineView>(`/payments/${encodeURIComponent(id)}/timeline`);
    io.out(flags.json ? terminalJson(timeline, 2) : timelineText(timeline));
  });
}

const LANES = { browser: 'browser', merchant: 'merchant', sandbox: 'sandbox', handler: 'handler' } as const;

/** One line of a timeline item, with what it adds below it (a cause, a handler's answer). */
function itemLines(item: TimelineItemView): string[] {
  const arrow = item.from === item.to ? `[${LANES[item.from]}]` : `${LANES[item.from]} -> ${LANES[item.to]}`;
  // Titles name requests' paths, errors and diagnoses quote the handler: escaped (terminal-text.ts).
  const head = `${time(item.at)}  ${arrow.padEnd(20)} ${terminalText(item.title)}`;
  if (item.kind === 'state') return [head, `    caused by ${terminalText(item.cause.text)}`];
  if (item.kind === 'attempt') {
    const lines = [head];
    if (item.attempt.error) lines.push(`    ${terminalText(item.attempt.error)}`);
    if (item.signature_diagnosis) lines.push(`    signature: ${terminalText(item.signature_diagnosis.message)}`);
    return lines;
  }
  return [head];
}

/** The timeline as text: the payment, then one line per item (sandbox time), oldest first. */
export function timelineText(t: TimelineView): string {
  const p = t.payment;
  const lines = [
    `${kleur.bold(p.id)}  ${p.family}  ${p.merchant_id}  ${p.amount} ${p.currency} (minor units)  ${p.status}${p.trace_id ? `  trace ${p.trace_id}` : ''}`,
    ...t.items.flatMap(itemLines),
  ];
  if (!t.journal_complete) lines.push('(the request journal no longer holds every request of this payment: --journal-size)');
  return lines.join('\n');
}
