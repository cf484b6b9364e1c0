// --dry-run of the commands that change a sandbox's state wholesale (`reset`, `clock advance`,
// `import`): everything is checked as the real run would (the flags, the file, that the sandbox
// answers, that the merchant exists) and what would happen is printed, but the request that changes
// state is never sent. With --json: {"dry_run": true, "request": {method, url, body}, ...what it found}.
import { readFileSync } from 'node:fs';
import { parseDuration } from '../domain/duration.js';
import { errorMessage, present, SandboxError } from '../errors.js';
import type { ClockView } from '../views/clock.js';
import type { MerchantView } from '../views/merchant.js';
import { CliError } from './cli-error.js';
import type { ClientFlags, ControlClient } from './control-client.js';
import type { CliIo } from './io.js';

/** The request a dry run leaves unsent, as printed. */
interface UnsentRequest {
  method: 'POST';
  url: string;
  body?: Record<string, unknown>;
}

/** Prints what a dry run found: `text` for people, the request and `found` for --json. */
function report(io: CliIo, flags: ClientFlags, request: UnsentRequest, text: string, found: Record<string, unknown> = {}): void {
  if (flags.json) io.out(JSON.stringify({ dry_run: true, request, ...found }, null, 2));
  else io.out(`dry run: ${text}; nothing was changed (run it again without --dry-run)`);
}

/** `sandbox reset --dry-run [--merchant ID]`: the sandbox answers, the merchant exists; nothing is emptied. */
export async function dryRunReset(client: ControlClient, flags: ClientFlags & { merchant?: string }, io: CliIo): Promise<void> {
  const url = `${client.base}/_sandbox/reset`;
  if (flags.merchant === undefined) {
    await client.get('/health');
    report(
      io,
      flags,
      { method: 'POST', url },
      `would empty every table of ${client.base} but the seeded credentials (created merchants go too), reseed them and reload --scenario`,
    );
    return;
  }
  const merchant = await client.get<MerchantView>(`/merchants/${encodeURIComponent(flags.merchant)}`);
  report(
    io,
    flags,
    { method: 'POST', url, body: { merchant: merchant.id } },
    `would empty the state of ${merchant.id} (${merchant.name}); the merchant, its credentials and every other merchant stay`,
    {
      merchant: { id: merchant.id, name: merchant.name },
    },
  );
}

/** `sandbox clock advance DURATION --dry-run`: the time it would move from and to. */
export async function dryRunAdvance(client: ControlClient, flags: ClientFlags, duration: string, io: CliIo): Promise<void> {
  const clock = await client.get<ClockView>('/clock');
  const wouldBe = new Date(
    Date.parse(clock.now) + present(parseDuration(duration), 'the duration (clockAdvanceProblem checked it)'),
  ).toISOString();
  report(
    io,
    flags,
    { method: 'POST', url: `${client.base}/_sandbox/clock/advance`, body: { duration } },
    `would move sandbox time from ${clock.now} to ${wouldBe} and run what falls due by then`,
    {
      now: clock.now,
      would_be: wouldBe,
    },
  );
}

/** `sandbox import FILE --dry-run`: the file is a snapshot the sandbox would take; how many rows of each table it holds. */
export async function dryRunImport(client: ControlClient, flags: ClientFlags, file: string, doc: unknown, io: CliIo): Promise<void> {
  // Loaded here: the snapshot's zod schema is compiled for this check alone, not for every command.
  const [{ snapshotSchema }, { validate }] = await Promise.all([import('../contracts/state.js'), import('../contracts/validate.js')]);
  const schema = snapshotSchema();
  let snapshot: ReturnType<typeof schema.parse>;
  try {
    snapshot = validate(schema, doc);
  } catch (err) {
    if (err instanceof SandboxError) throw new CliError(`${file} is not a snapshot the sandbox takes: ${err.message}`);
    throw err;
  }
  await client.get('/health');
  const tables = Object.fromEntries(Object.entries(snapshot.tables).map(([name, table]) => [name, table.rows.length]));
  const rows = Object.values(tables).reduce((sum, n) => sum + n, 0);
  report(
    io,
    flags,
    { method: 'POST', url: `${client.base}/_sandbox/import` },
    `would replace the whole state of ${client.base} with ${file}: ${rows} rows in ${Object.keys(tables).length} tables`,
    {
      tables,
    },
  );
}

/** The file's JSON, or a one-line error naming the file. */
export function readJsonFile(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new CliError(`cannot read ${file} as JSON: ${errorMessage(err)}`);
  }
}
