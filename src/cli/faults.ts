// `sandbox faults set|list|clear`: webhook and API fault rules of a running sandbox (docs/api-faults.md).
import type { Command } from 'commander';
import { CliError } from './cli-error.js';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import type { CliIo } from './io.js';
import { formatTable } from './table.js';
import { FAULT_SOURCE_LABELS } from '../domain/vocabularies.js';
import type { FaultListView, FaultsDeletedView, FaultsSetView } from '../views/fault-rule.js';

function rulesTable(list: FaultListView): string {
  if (list.data.length === 0) return `no fault rules (seed ${list.seed})`;
  return `${formatTable(
    ['ID', 'RULE', 'SET BY'],
    list.data.map((r) => [r.id, r.spec, FAULT_SOURCE_LABELS[r.source]]),
  )}\nseed ${list.seed}`;
}

/** Adds `sandbox faults ...`. */
export function addFaultsCommand(program: Command, io: CliIo): void {
  const faults = program
    .command('faults')
    .description(
      'inject webhook faults (duplicate, reorder, delay, fail-first, fail, lost-ack, bad-signature, stale-timestamp) and API faults (latency, status, reset, timeout, lost-answer)',
    );

  clientOptions(
    faults
      .command('set [spec]')
      .description(
        'add rules, e.g. "duplicate=2", "url=http://127.0.0.1:3000/hook:fail-first=2" or "route=POST /v1/payments:status=503,p=0.2" (docs/api-faults.md)',
      ),
  )
    .option('--seed <n>', 'reseed random faults (fail=P, p=P) so a run repeats exactly')
    .action(async (spec: string | undefined, flags: ClientFlags & { seed?: string }) => {
      if (spec === undefined && flags.seed === undefined) throw new CliError('give a fault spec such as "duplicate=2", or --seed N');
      const seed = flags.seed === undefined ? undefined : Number(flags.seed);
      if (seed !== undefined && !Number.isInteger(seed)) throw new CliError(`--seed must be a whole number, got "${flags.seed}"`);
      const result = await new ControlClient(flags).post<FaultsSetView>('/faults', {
        ...(spec !== undefined ? { spec } : {}),
        ...(seed !== undefined ? { seed } : {}),
      });
      io.out(flags.json ? JSON.stringify(result, null, 2) : rulesTable(result));
    });

  clientOptions(faults.command('list').description('the fault rules in force and the seed')).action(async (flags: ClientFlags) => {
    const result = await new ControlClient(flags).get<FaultListView>('/faults');
    io.out(flags.json ? JSON.stringify(result, null, 2) : rulesTable(result));
  });

  clientOptions(faults.command('clear [rule-id]').description('delete one rule, or every rule')).action(
    async (id: string | undefined, flags: ClientFlags) => {
      const client = new ControlClient(flags);
      const result = await (id
        ? client.delete<FaultsDeletedView>(`/faults/${encodeURIComponent(id)}`)
        : client.delete<FaultsDeletedView>('/faults'));
      io.out(flags.json ? JSON.stringify(result) : `deleted ${result.deleted} fault rule${result.deleted === 1 ? '' : 's'}`);
    },
  );
}
