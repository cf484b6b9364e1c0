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

/** The report of a jump as lines: each job or charge, its events indented under it, their deliveries under those. */
export function reportLines(result: ClockAdvanceView): string[] {
  const lines = [`${result.from} -> ${result.now}`];
  for (const step of result.report.steps) {
    if (step.kind === 'job') lines.push(`${step.at}  job ${step.job} ${step.subject}`);
    else {
      const outcome = step.scripted_outcome ? `scripted outcome ${step.scripted_outcome}` : "the card's own outcome";
      lines.push(`${step.at}  charge ${step.payment_id} on ${step.token} (${step.initiator}): ${outcome}`);
    }
    for (const event of step.events) {
      lines.push(`  event ${event.type} ${event.id} (${event.resource_id})`);
      for (const delivery of event.deliveries) {
        const first = delivery.first_attempt;
        const answer = !first
          ? 'no answer yet (unanswered)'
          : first.ok
            ? `${first.status} in ${first.latency_ms}ms`
            : `FAILED: ${first.status ?? first.error}${first.answer ? ` ${JSON.stringify(first.answer.slice(0, 60))}` : ''}`;
        lines.push(`    delivery ${delivery.id} -> ${delivery.url}: ${answer}`);
      }
    }
  }
  const r = result.report;
  lines.push(
    `${r.steps.length} step${r.steps.length === 1 ? '' : 's'}, ${r.scripted_outcomes} scripted outcome${r.scripted_outcomes === 1 ? '' : 's'} taken, ${r.events} event${r.events === 1 ? '' : 's'}, ${r.deliveries} deliver${r.deliveries === 1 ? 'y' : 'ies'} (${r.failed} failed, ${r.unanswered} unanswered)`,
  );
  return lines;
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
    .option(
      '--report',
      "print what the jump caused, in causal order: jobs, scripted outcomes taken, events, each delivery's first attempt with the handler's answer; exit 1 when a delivery failed or had no answer within --wait",
    )
    .option('--wait <duration>', "with --report: real time to wait for the deliveries' first attempts (default 10s, at most 5m)")
    .option('--dry-run', 'say from when to when the clock would move, and move nothing')
    // --url, --control-token and --json belong to `clock`, which parses them wherever they stand.
    .configureHelp({ showGlobalOptions: true })
    // "-1h" would otherwise be taken for an unknown option; it reaches the check below instead.
    .allowUnknownOption()
    .action(async (duration: string, _options: unknown, command: Command) => {
      const flags = command.optsWithGlobals<ClientFlags & { report?: boolean; wait?: string; dryRun?: boolean }>();
      const problem = clockAdvanceProblem(duration);
      if (problem) throw new CliError(problem);
      if (flags.dryRun && flags.report) throw new CliError('--dry-run moves nothing, so there is nothing to --report: leave one out');
      if (flags.dryRun) return dryRunAdvance(new ControlClient(flags), flags, duration, io);
      if (flags.wait !== undefined && !flags.report) throw new CliError('--wait is for --report: add --report, or leave --wait out');
      const wait = flags.report ? (flags.wait ?? '10s') : undefined;
      const result = await new ControlClient(flags).post<ClockAdvanceView>('/clock/advance', { duration, ...(wait ? { wait } : {}) });
      const summary = `sandbox time is now ${result.now}, ${ahead(result)} (${result.jobs_run} timed job${result.jobs_run === 1 ? '' : 's'} ran)`;
      if (!flags.report) return io.out(flags.json ? JSON.stringify(result, null, 2) : summary);
      io.out(flags.json ? JSON.stringify(result, null, 2) : [...reportLines(result), summary].join('\n'));
      // A CI job gates on a rehearsal: a delivery the handler did not take is a failure.
      if (result.report.failed > 0 || result.report.unanswered > 0) io.exitCode = 1;
    });
}
