// `sandbox merchants create|list|delete`: merchants on demand in a running sandbox, so a test
// worker in any language gets a merchant of its own (`sandbox merchants create --json`).
import type { Command } from 'commander';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import type { CliIo } from './io.js';
import { formatTable } from './table.js';
import type { DeletedMerchantView, MerchantView } from '../views/merchant.js';
import { terminalJson } from './terminal-text.js';

/** One merchant's credentials as aligned "field  value" lines, in the order a worker copies them. */
function credentialLines(m: MerchantView): string {
  const fields: Array<[string, unknown]> = [
    ['id', m.id],
    ['name', m.name],
    ['currency', m.currency],
    ['terNO', m.terNO],
    ['public_key', m.public_key],
    ['private_key', m.private_key],
    ['api_key', m.api_key],
    ['webhook_secret', m.webhook_secret],
  ];
  return formatTable(
    ['FIELD', 'VALUE'],
    fields.map(([name, value]) => [name, String(value)]),
  );
}

/** "3 transactions, 5 events" for the tables rows went from (a merchant's reset or deletion). */
export function removedSummary(removed: Record<string, number>): string {
  const parts = Object.entries(removed).map(([table, count]) => `${count} ${table}`);
  return parts.length ? parts.join(', ') : 'no rows';
}

/** Adds `sandbox merchants create`, `list` and `delete`. */
export function addMerchantsCommand(program: Command, io: CliIo): void {
  const merchants = program
    .command('merchants')
    .description('merchants on demand: one of its own per test worker (isolated references, lists, events, webhooks, reset)');

  clientOptions(
    merchants
      .command('create')
      .description('create a merchant with its own terminal, API key and webhook secret; --json prints it for a script'),
  )
    .option('--name <name>', 'the name shown in lists and the dashboard (default "Merchant <terNO>")')
    .option('--currency <code>', 'the currency the sandbox invents objects in for it, e.g. by sandbox trigger (default EUR)')
    .action(async (flags: ClientFlags & { name?: string; currency?: string }) => {
      const body: Record<string, unknown> = {};
      if (flags.name !== undefined) body.name = flags.name;
      if (flags.currency !== undefined) body.currency = flags.currency;
      const created = await new ControlClient(flags).post<MerchantView>('/merchants', body);
      io.out(flags.json ? terminalJson(created, 2) : credentialLines(created));
    });

  clientOptions(
    merchants.command('list').description('every merchant, seeded and created, with its first terminal and API key (all pages)'),
  ).action(async (flags: ClientFlags) => {
    const data = await new ControlClient(flags).listAll<MerchantView>('/merchants');
    if (flags.json) return io.out(terminalJson(data, 2));
    const rows = data.map((m) => [
      m.id,
      m.name,
      String(m.terNO ?? ''),
      m.public_key ?? '',
      m.api_key ?? '',
      m.seeded ? 'seeded' : 'created',
    ]);
    io.out(formatTable(['ID', 'NAME', 'TERNO', 'PUBLIC KEY', 'API KEY', 'FROM'], rows));
  });

  clientOptions(
    merchants
      .command('delete <id>')
      .description('delete a created merchant and everything it owns (seeded merchants stay: reset them with sandbox reset --merchant)'),
  ).action(async (id: string, flags: ClientFlags) => {
    const result = await new ControlClient(flags).delete<DeletedMerchantView>(`/merchants/${encodeURIComponent(id)}`);
    io.out(flags.json ? terminalJson(result, 2) : `deleted ${id}: ${removedSummary(result.removed)}`);
  });
}
