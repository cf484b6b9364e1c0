// Runs an example merchant's own test suite (examples/php-merchant, examples/python-merchant) from
// vitest: each suite prints TAP ("ok N - name", "not ok N - name" with "# why" lines under it), and
// each case it lists becomes one vitest test, so a failing case names itself in `npm test` and
// counts in CI's test total.
import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { BIN } from '../helpers/cli-sandbox.js';

/** The examples folder of this repository. */
export const EXAMPLES = fileURLToPath(new URL('../../examples', import.meta.url));

/** `sandbox` as a command line for a suite's SANDBOX_CLI: this node and the built bin/sandbox.js. */
export const SANDBOX_CLI = [process.execPath, BIN].map((part) => `'${part.replace(/'/g, `'\\''`)}'`).join(' ');

/** What a suite run printed and how it ended. */
export interface SuiteRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** One case of a TAP report. */
export interface TapCase {
  name: string;
  ok: boolean;
  /** The "# ..." lines under the case, without the "# ". */
  diagnostics: string;
}

/** The cases of a TAP report, in order. */
export function parseTap(output: string): TapCase[] {
  const cases: TapCase[] = [];
  for (const line of output.split('\n')) {
    const result = /^(not )?ok \d+ - (.+)$/.exec(line);
    if (result) cases.push({ name: result[2]!, ok: !result[1], diagnostics: '' });
    else if (line.startsWith('#') && cases.length > 0 && !cases.at(-1)!.ok) cases.at(-1)!.diagnostics += `${line.replace(/^# ?/, '')}\n`;
  }
  return cases;
}

/** Whether a program runs here (`php --version`). */
export function installed(command: string): boolean {
  return spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;
}

/** The case names a suite lists (`--list`, one per line): known before it runs, so each is a test. */
export function listCases(command: string, args: string[], cwd: string): string[] {
  const listed = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${listed.status}: ${listed.stdout}${listed.stderr}`);
  return listed.stdout.split('\n').filter(Boolean);
}

/** Runs a suite to its end with extra environment variables. */
export function runSuite(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<SuiteRun> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, timeout: 110_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/**
 * Declares one test per listed case, each passing when the suite reported it ok, and one that the
 * suite exited 0 having reported every case (a crash before a case ran fails it with the output).
 */
export function exampleCases(cases: string[], run: () => Promise<SuiteRun>): void {
  let result: SuiteRun;
  let reported: Map<string, TapCase>;
  beforeAll(async () => {
    result = await run();
    reported = new Map(parseTap(result.stdout).map((tap) => [tap.name, tap]));
  }, 120_000);

  for (const name of cases) {
    it(name, () => {
      const tap = reported.get(name);
      expect(tap, `the suite did not report this case; it printed:\n${result.stdout}${result.stderr}`).toBeDefined();
      expect(tap!.ok, `the case failed:\n${tap!.diagnostics}`).toBe(true);
    });
  }

  it('the suite exits 0 and reports exactly the cases it lists', () => {
    expect([...reported.keys()], `${result.stdout}${result.stderr}`).toEqual(cases);
    expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
  });
}
