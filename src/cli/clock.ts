// `sandbox clock advance <duration>`: moves sandbox time so expiries, delayed outcomes and
// webhook retries that fall due happen now.
import type { Command } from 'commander';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import type { CliIo } from './program.js';

/** Adds `sandbox clock advance`. */
export function addClockCommand(program: Command, io: CliIo): void {
  const clock = program.command('clock').description('the sandbox clock');
  clientOptions(clock.command('advance <duration>').description('move sandbox time forward, e.g. 15m, 2h, 1d')).action(async (duration: string, flags: ClientFlags) => {
    const result = await new ControlClient(flags).post('/clock/advance', { duration });
    io.out(flags.json ? JSON.stringify(result, null, 2) : `sandbox time is now ${result.now} (${result.jobs_run} timed job${result.jobs_run === 1 ? '' : 's'} ran)`);
  });
}
