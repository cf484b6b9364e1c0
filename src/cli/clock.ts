// `sandbox clock` shows sandbox time; `sandbox clock advance <duration>` moves it so expiries,
// delayed outcomes and webhook retries that fall due happen now.
import type { Command } from 'commander';
import { clockAdvanceProblem } from '../domain/duration.js';
import { CliError } from './cli-error.js';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import type { CliIo } from './io.js';
import { dryRunAdvance } from './dry-run.js';
import type { ClockAdvanceView, ClockView } from '../views/clock.js';

function ahead(view: ClockView): string {
  return view.offset_ms > 0 ? `${view.offset} ahead of the wall clock` : 'the wall clock';
}

/** Adds `sandbox clock` and `sandbox clock advance`. */
export function addClockCommand(program: Command, io: CliIo): void {
  const clock = clientOptions(program.command('clock').description('show the sandbox time; `clock advance` moves it forward'));
  clock.action(async (flags: ClientFlags) => {
    const view = await new ControlClient(flags).get<ClockView>('/clock');
    io.out(flags.json ? JSON.stringify(view, null, 2) : `sandbox time is ${view.now} (${ahead(view)})`);
  });
  clock
    .command('advance <duration>')
    .description('move sandbox time forward, e.g. 15m, 2h, 1d (a unit is required; never backwards)')
    .option('--dry-run', 'say from when to when the clock would move, and move nothing')
    // --url, --control-token and --json belong to `clock`, which parses them wherever they stand.
    .configureHelp({ showGlobalOptions: true })
    // "-1h" would otherwise be taken for an unknown option; it reaches the check below instead.
    .allowUnknownOption()
    .action(async (duration: string, _options: unknown, command: Command) => {
      const flags = command.optsWithGlobals<ClientFlags & { dryRun?: boolean }>();
      const problem = clockAdvanceProblem(duration);
      if (problem) throw new CliError(problem);
      if (flags.dryRun) return dryRunAdvance(new ControlClient(flags), flags, duration, io);
      const result = await new ControlClient(flags).post<ClockAdvanceView>('/clock/advance', { duration });
      io.out(
        flags.json
          ? JSON.stringify(result, null, 2)
          : `sandbox time is now ${result.now}, ${ahead(result)} (${result.jobs_run} timed job${result.jobs_run === 1 ? '' : 's'} ran)`,
      );
    });
}
