// Runs the examples of a Markdown page in order and holds each against the answer the page shows
// under it: a JSON sample must have the real answer's keys (and an error sample the real error's
// code), a text sample's lines that carry no id or time must appear in the real output, and a
// command whose sample is not a CLI error must exit 0 (or with the status an `echo $?` under it
// shows). Blocks marked
// `<!-- docs-test: skip (reason) -->` are left out, with their reason on the page.
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { basename, join } from 'node:path';
import { expect } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';
import { consoleSteps, shellSteps, type DocBlock } from './doc-blocks.js';
import { varies, type CommandRun, type DocRunner } from './doc-runner.js';

/** The fence languages the docs test runs: shell, with or without `$ ` prompts. */
const SHELL = new Set(['sh', 'bash', 'console']);

/** Runs every shell block of `blocks` (from `file`, in page order) and checks its samples. */
export async function runExamples(runner: DocRunner, file: string, blocks: DocBlock[]): Promise<void> {
  let previous: { end: number; run: CommandRun | undefined } | undefined;
  for (const [index, block] of blocks.entries()) {
    const where = `${basename(file)} line ${block.line} (${block.section})`;
    if (block.skip) continue;
    // A ```json block right under a command block is that command's answer.
    if (block.lang === 'json' && previous?.run && answerBelow(previous.end, block)) {
      checkOutput(runner, block.text, previous.run, where);
      continue;
    }
    if (!SHELL.has(block.lang)) continue;
    const steps = /^\$ /m.test(block.text) ? consoleSteps(block.text) : shellSteps(block.text);
    let last: CommandRun | undefined;
    for (const [at, step] of steps.entries()) {
      const [run] = await runner.runBlock(step.command);
      if (run) {
        // The last command's answer may be the ```json block under this one: checked there.
        const below = step === steps.at(-1) && !step.output && answerBelow(block.end, blocks[index + 1]);
        if (!below) checkOutput(runner, step.output, run, `${where}: \`${run.command}\``, shownStatus(steps[at + 1]));
        last = run;
      } else if (step.output) await backgroundPrinted(runner, step, where);
    }
    await backgroundReady(runner);
    previous = { end: block.end, run: last };
  }
}

/** The exit status the page shows for a command: the answer of an `echo $?` right after it. */
function shownStatus(next: { command: string; output: string } | undefined): number | undefined {
  return next?.command.trim() === 'echo $?' && /^\d+$/.test(next.output) ? Number(next.output) : undefined;
}

/** True when `next` is a ```json block right under the block that ends on line `end`. */
function answerBelow(end: number, next: DocBlock | undefined): boolean {
  return next?.lang === 'json' && next.line <= end + 2;
}

/** Holds one command's real output against the sample the page shows (`sample` may be empty). */
function checkOutput(runner: DocRunner, sample: string, run: CommandRun, where: string, status?: number): void {
  const printed = `${run.stdout}${run.stderr}`;
  const failure = /^sandbox: /.test(sample);
  if (status !== undefined) expect(run.code, `${where} should exit ${status} as the page shows; it printed ${printed}`).toBe(status);
  else if (failure) expect(run.code, `${where} should fail as the page shows; it printed ${printed}`).not.toBe(0);
  else expect(run.code, `${where} exited ${run.code}: ${printed}`).toBe(0);
  if (sample.startsWith('{') || sample.startsWith('[')) return checkJson(runner, sample, run, where);
  if (!sample && /^\s*[{[]/.test(run.stdout)) {
    // No sample shown: the answer may be anything but an error the page does not mention.
    expect((JSON.parse(run.stdout) as { error?: unknown }).error, `${where} answered ${run.stdout}`).toBeUndefined();
    return;
  }
  const real = squash(printed);
  for (const line of sample.split('\n')) {
    if (line.trim() && !varies(line)) expect(real, `${where}: the page shows "${line.trim()}"`).toContain(squash(line));
  }
  runner.learnText(sample, printed);
}

/** A JSON sample: the same keys as the real answer (top level), or the same error code. */
function checkJson(runner: DocRunner, sample: string, run: CommandRun, where: string): void {
  let real: unknown;
  expect(() => (real = JSON.parse(run.stdout)), `${where} printed no JSON: ${run.stdout}${run.stderr}`).not.toThrow();
  const code = (value: unknown) => (value as { error?: { code?: string } } | undefined)?.error?.code;
  const shownCode = /"code"\s*:\s*"([^"]+)"/.exec(sample)?.[1];
  if (/^\{\s*"error"/.test(sample)) {
    expect(code(real), `${where}: the page shows the error ${shownCode}; the answer was ${run.stdout}`).toBe(shownCode);
    return;
  }
  expect(code(real), `${where} answered an error: ${run.stdout}`).toBeUndefined();
  let shown: unknown;
  try {
    shown = JSON.parse(sample);
  } catch {
    // An abridged sample (`{"id":"cs_...",...}`): its string fields still say which real values
    // later commands that copy them stand for.
    for (const [, key, value] of sample.matchAll(/"([\w.-]+)"\s*:\s*"([^"]*)"/g)) runner.learnSample(value, (real as Record<string, unknown>)[key!]);
    return;
  }
  const keys = (value: unknown) => Object.keys((Array.isArray(value) ? value[0] : value) ?? {}).sort();
  expect(keys(shown), `${where}: the sample's keys`).toEqual(keys(real));
  runner.learnSample(shown, real);
}

/**
 * Waits until a background command printed the id-free lines of the sample the page shows (the
 * others may only come after a later command) and wrote its --ready-file, which the page's next
 * command may read.
 */
async function backgroundPrinted(runner: DocRunner, step: { command: string; output: string }, where: string): Promise<void> {
  const command = runner.resolve(step.command);
  const entry = runner.background.find((candidate) => candidate.command === command)!;
  const lines = step.output.split('\n').filter((line) => line.trim() && !varies(line));
  const readyFile = /--ready-file\s+(\S+)/.exec(command)?.[1];
  await waitFor(
    () => (lines.every((line) => squash(entry.output).includes(squash(line))) && (!readyFile || readable(join(runner.project.dir, readyFile)))) || undefined,
    `${where}: \`${command}\` printing ${lines.join(' / ')}${readyFile ? ` and writing ${readyFile}` : ''}; it printed ${entry.output}`,
    10_000,
  );
}

/** True when `file` exists and holds something. */
function readable(file: string): boolean {
  try {
    return readFileSync(file, 'utf8').trim() !== '';
  } catch {
    return false;
  }
}

/** Waits until each background command that listens on a port accepts connections. */
export async function backgroundReady(runner: DocRunner): Promise<void> {
  for (const entry of runner.background) {
    const asked = Number(/--port\s+(\d+)/.exec(entry.command)?.[1] ?? (/sandbox start/.test(entry.command) ? 4010 : NaN));
    if (Number.isNaN(asked)) continue;
    await waitFor(async () => {
      if (entry.child.exitCode !== null) throw new Error(`\`${entry.command}\` exited with ${entry.child.exitCode}: ${entry.output}`);
      // `--port 0`: the port it picked is the one its Listening line names.
      const port = asked || Number(/Listening on http:\/\/[\d.]+:(\d+)/.exec(entry.output)?.[1]);
      // Its own banner names the port: another program already listening there does not count.
      return (port && entry.output.includes(`:${port}`) && (await portOpen(port))) || undefined;
    }, `\`${entry.command}\` listening on ${asked || 'the port it picked'}`, 20_000);
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Whitespace runs as one space: table columns are as wide as the run's values make them. */
function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
