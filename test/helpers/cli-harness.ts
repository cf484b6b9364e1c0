// Runs the `sandbox` CLI in-process (buildProgram with captured output) against a real sandbox.
import kleur from 'kleur';
import { buildProgram, userErrorMessage } from '../../src/cli/program.js';
import type { CliIo } from '../../src/cli/io.js';
import { CommanderError } from 'commander';

kleur.enabled = false;

/** What one CLI run printed, and the one-line error it failed with, if any. */
export interface CliRun {
  out: string;
  err: string;
  error: string | undefined;
  /** The exit code the run set (`sandbox wait` sets 1 on a timeout), or 1 after an error, else 0. */
  exitCode: number;
}

/** Runs `sandbox <args>` and captures stdout, stderr and a user error; `stdin` is what standard input holds. */
export async function runCli(args: string[], stdin?: string): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => void out.push(t), err: (t) => void err.push(t) };
  if (stdin !== undefined) io.readStdin = async () => stdin;
  let error: string | undefined;
  try {
    await buildProgram(io).parseAsync(['node', 'sandbox', ...args]);
  } catch (e) {
    if (e instanceof CommanderError) error = e.message;
    else {
      error = userErrorMessage(e);
      if (error === undefined) throw e;
    }
  }
  return { out: out.join('\n'), err: err.join('\n'), error, exitCode: io.exitCode ?? (error ? 1 : 0) };
}
