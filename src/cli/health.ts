// `sandbox health`: exit 0 when the sandbox at --url answers GET /_sandbox/health, else exit 1 with
// one line saying why (nothing answers, no answer within --timeout, something that is not a
// sandbox, the control token missing). The container image's HEALTHCHECK runs it, so the image
// needs no curl; compose files, CI scripts and Kubernetes exec probes can run it too.
import type { Command } from 'commander';
import { CliError } from './cli-error.js';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import { timeoutFlag } from './flag-checks.js';
import type { CliIo } from './io.js';
import type { HealthView } from '../views/clock.js';

/** The flags of `sandbox health`. */
type HealthFlags = ClientFlags & { timeout: string };

/** Adds `sandbox health`. */
export function addHealthCommand(program: Command, io: CliIo): void {
  clientOptions(
    program
      .command('health')
      .description('exit 0 when the sandbox at --url answers its health check, else exit 1 with one line why (the image HEALTHCHECK)')
      .option('--timeout <duration>', 'how long to wait for the answer, e.g. 5s', '5s'),
  ).action(async (flags: HealthFlags) => {
    const timeoutMs = timeoutFlag(flags.timeout, '5s or 1m');
    const client = new ControlClient({ ...flags, timeoutMs });
    const view = await client.get<Partial<HealthView> | null>('/health');
    if (view?.status !== 'ok')
      throw new CliError(
        `${client.base} answered, but not with a sandbox's health ({"status":"ok"}); is --url the sandbox's address?`,
        'not_a_sandbox',
      );
    io.out(
      flags.json
        ? JSON.stringify({ ...view, url: client.base }, null, 2)
        : `ok: paysandbox ${view.version} answers at ${client.base} (sandbox time ${view.time})`,
    );
  });
}
