// `sandbox export`, `sandbox import FILE` and `sandbox reset`: whole-state commands, so a CI job
// can start from a known state. export writes to stdout (or --output) one row per line, so a
// snapshot kept in git diffs well.
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import type { ImportView, MerchantResetView, ResetView } from '../views/state.js';
import type { CliIo } from './io.js';
import { removedSummary } from './merchants.js';
import { dryRunImport, dryRunReset, readJsonFile } from './dry-run.js';

interface Snapshot {
  tables: Record<string, { columns: string[]; rows: unknown[][] }>;
  [field: string]: unknown;
}

/** A snapshot as text: its fields one per line, and each table row on a line of its own. */
export function formatSnapshot(doc: Snapshot): string {
  const { tables, ...head } = doc;
  const lines = ['{'];
  for (const [key, value] of Object.entries(head)) lines.push(`  ${JSON.stringify(key)}: ${JSON.stringify(value)},`);
  lines.push('  "tables": {');
  const names = Object.keys(tables);
  names.forEach((name, i) => {
    const { columns, rows } = tables[name];
    lines.push(`    ${JSON.stringify(name)}: {`, `      "columns": ${JSON.stringify(columns)},`);
    if (rows.length === 0) lines.push('      "rows": []');
    else lines.push('      "rows": [', rows.map((row) => `        ${JSON.stringify(row)}`).join(',\n'), '      ]');
    lines.push(`    }${i < names.length - 1 ? ',' : ''}`);
  });
  lines.push('  }', '}');
  return `${lines.join('\n')}\n`;
}

/** "3 transactions, 5 events, 5 deliveries" for the tables that have rows. */
function summary(tables: Record<string, number>): string {
  const filled = Object.entries(tables).filter(([, count]) => count > 0);
  return filled.length ? filled.map(([table, count]) => `${count} ${table}`).join(', ') : 'every table empty';
}

/** Adds `sandbox export`, `sandbox import` and `sandbox reset`. */
export function addSnapshotCommands(program: Command, io: CliIo): void {
  clientOptions(
    program
      .command('export')
      .description('print the whole sandbox state as a JSON snapshot (sandbox export > state.json)')
      .option('-o, --output <file>', 'write the snapshot to this file instead of stdout'),
  ).action(async (flags: ClientFlags & { output?: string }) => {
    const doc = await new ControlClient(flags).get<Snapshot>('/export');
    const text = formatSnapshot(doc);
    if (flags.output) {
      writeFileSync(flags.output, text);
      io.err(`wrote ${flags.output}`);
    } else {
      io.out(text);
    }
  });

  clientOptions(program.command('import <file>').description('replace the whole sandbox state with a snapshot made by sandbox export'))
    .option('--dry-run', 'check the file is a snapshot the sandbox takes and say what it holds; replace nothing')
    .action(async (file: string, flags: ClientFlags & { dryRun?: boolean }) => {
      const doc = readJsonFile(file);
      if (flags.dryRun) return dryRunImport(new ControlClient(flags), flags, file, doc, io);
      const result = await new ControlClient(flags).post<ImportView>('/import', doc);
      io.out(flags.json ? JSON.stringify(result, null, 2) : `imported ${file}: ${summary(result.tables)}`);
    });

  clientOptions(
    program
      .command('reset')
      .description('empty every table but the seeded credentials (created merchants go too), reseed them and reload --scenario'),
  )
    .option('--merchant <id>', "empty only this merchant's state and leave the others as they are")
    .option('--dry-run', 'check the sandbox (and the merchant) and say what would be emptied; empty nothing')
    .action(async (flags: ClientFlags & { merchant?: string; dryRun?: boolean }) => {
      const client = new ControlClient(flags);
      if (flags.dryRun) return dryRunReset(client, flags, io);
      if (flags.merchant !== undefined) {
        const result = await client.post<MerchantResetView>('/reset', { merchant: flags.merchant });
        return io.out(flags.json ? JSON.stringify(result, null, 2) : `reset ${flags.merchant}: removed ${removedSummary(result.removed)}`);
      }
      const result = await client.post<ResetView>('/reset');
      io.out(flags.json ? JSON.stringify(result, null, 2) : `reset: ${summary(result.tables)}`);
    });
}
