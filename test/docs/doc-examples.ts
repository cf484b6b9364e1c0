// Runs the examples of a Markdown page in order and holds each against the answer the page shows
// under it (in the block, after a `# ` under the command, or in a ```json or ```text block right
// below): a JSON sample must be the real answer modulo ids and times (the same keys and values at
// every level; an abridged one, `{"id":"cs_...","status":"open",...}`, each value it shows), a text
// sample's lines must be in the real output in order, modulo ids and times (sample-match.ts), and a
// command whose sample is not a CLI error must exit 0 (or with the status an `echo $?` under it
// shows). Blocks marked `<!-- docs-test: skip (reason) -->` are left out, with their reason on the
// page.
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { basename, join } from 'node:path';
import { expect } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';
import { consoleSteps, shellSteps, type ConsoleStep, type DocBlock } from './doc-blocks.js';
import type { CommandRun, DocRunner } from './doc-runner.js';
import { abridgedDifferences, jsonDifferences, missingLine } from './sample-match.js';

/** The fence languages the docs test runs: shell, with or without `$ ` prompts. */
const SHELL = new Set(['sh', 'bash', 'console']);
/** The fence languages of a command's answer shown in a block of its own. */
const ANSWER = new Set(['json', 'text']);

/** Runs every shell block of `blocks` (from `file`, in page order) and checks its samples. */
export async function runExamples(runner: DocRunner, file: string, blocks: DocBlock[]): Promise<void> {
  let previous: { end: number; run: CommandRun | undefined } | undefined;
  // What a background command shows under it may come only after later commands (a payment for
  // `sandbox listen` to print): checked once the page's examples ran.
  const printed: { step: ConsoleStep; where: string }[] = [];
  for (const [index, block] of blocks.entries()) {
    const where = `${basename(file)} line ${block.line} (${block.section})`;
    if (block.skip) continue;
    // A ```json or ```text block right under a command block is that command's answer.
    if (ANSWER.has(block.lang) && previous?.run && answerBelow(previous.end, block)) {
      checkOutput(block.text, previous.run, where);
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
        if (!below) checkOutput(step.output, run, `${where}: \`${run.command}\``, shownStatus(steps[at + 1]));
        last = run;
      } else {
        // A reader types the next command once it answers.
        await readyFileWritten(runner, step.command, where);
        await backgroundReady(runner);
        if (step.output) {
          await backgroundPrinted(runner, step, where, 1);
          printed.push({ step, where });
        }
      }
    }
    previous = { end: block.end, run: last };
  }
  for (const { step, where } of printed) await backgroundPrinted(runner, step, where);
}

/** The exit status the page shows for a command: the answer of an `echo $?` right after it. */
function shownStatus(next: { command: string; output: string } | undefined): number | undefined {
  return next?.command.trim() === 'echo $?' && /^\d+$/.test(next.output) ? Number(next.output) : undefined;
}

/** True when `next` is a ```json or ```text block right under the block that ends on line `end`. */
function answerBelow(end: number, next: DocBlock | undefined): boolean {
  return ANSWER.has(next?.lang ?? '') && next!.line <= end + 2;
}

/** Holds one command's real output against the sample the page shows (`sample` may be empty). */
function checkOutput(sample: string, run: CommandRun, where: string, status?: number): void {
  const printed = `${run.stdout}${run.stderr}`;
  const failure = /^sandbox: /.test(sample);
  if (status !== undefined) expect(run.code, `${where} should exit ${status} as the page shows; it printed ${printed}`).toBe(status);
  else if (failure) expect(run.code, `${where} should fail as the page shows; it printed ${printed}`).not.toBe(0);
  else expect(run.code, `${where} exited ${run.code}: ${printed}`).toBe(0);
  // A JSON sample of a JSON answer; a sample of part of one (`... | head -12`) is text.
  if (/^[{[]/.test(sample) && isJson(run.stdout)) {
    checkJson(sample, run, where);
    return;
  }
  if (!sample && /^\s*[{[]/.test(run.stdout)) {
    // No sample shown: the answer may be anything but an error the page does not mention.
    expect((JSON.parse(run.stdout) as { error?: unknown }).error, `${where} answered ${run.stdout}`).toBeUndefined();
    return;
  }
  // A terminal interleaves stderr (warnings) with stdout as they come; here they come apart.
  const missing = missingLine(sample, printed) && missingLine(sample, `${run.stderr}${run.stdout}`);
  expect(missing, `${where}: the page shows "${missing}", but the command printed:\n${printed}`).toBeUndefined();
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A JSON sample of a JSON answer: the answer modulo ids and times, or each value an abridged sample shows. */
function checkJson(sample: string, run: CommandRun, where: string): void {
  const real = JSON.parse(run.stdout) as unknown;
  let shown: unknown;
  try {
    // A long string may be wrapped onto the next line on the page: the break stands for a space.
    shown = JSON.parse(isJson(sample) ? sample : sample.replace(/\n\s*/g, ' '));
  } catch {
    expect(abridgedDifferences(sample, real), `${where}: the answer was ${run.stdout}`).toEqual([]);
    return;
  }
  expect(jsonDifferences(shown, real), `${where}: the answer was ${run.stdout}`).toEqual([]);
}

/**
 * Waits until a background command printed the sample the page shows under it (`lines`: only its
 * first lines, the banner a reader waits for before going on in the other terminal).
 */
async function backgroundPrinted(runner: DocRunner, step: ConsoleStep, where: string, lines = Infinity): Promise<void> {
  const entry = runner.startedAs(step.command)!;
  const shown = step.output.split('\n').slice(0, lines).join('\n');
  await waitFor(
    () => missingLine(shown, entry.output) === undefined || undefined,
    `${where}: \`${step.command}\` printing ${step.output}; it printed ${entry.output}${entry.child.exitCode === null ? '' : ` and exited with ${entry.child.exitCode}`}`,
    // npx alone takes seconds on a busy machine.
    60_000,
  );
}

/** Waits until a background command wrote its --ready-file, which the page's next command may read. */
async function readyFileWritten(runner: DocRunner, command: string, where: string): Promise<void> {
  const readyFile = /--ready-file\s+(\S+)/.exec(command)?.[1];
  if (!readyFile) return;
  const entry = runner.startedAs(command)!;
  await waitFor(
    () => readable(join(runner.project.dir, readyFile)) || undefined,
    `${where}: \`${command}\` writing ${readyFile}; it printed ${entry.output}`,
    60_000,
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
    // Once it answered, it may stop (`sandbox stop`, `--count`): that is the page's business.
    if (answered.has(entry.child)) continue;
    const asked = Number(/(?:--port|-p)\s+(\d+)/.exec(entry.command)?.[1] ?? (/sandbox start/.test(entry.command) ? 4010 : NaN));
    if (Number.isNaN(asked)) continue;
    await waitFor(
      async () => {
        if (entry.child.exitCode !== null) throw new Error(`\`${entry.command}\` exited with ${entry.child.exitCode}: ${entry.output}`);
        // `--port 0`: the port it picked is the one its Listening line names.
        const port = asked || Number(/Listening on http:\/\/[\d.]+:(\d+)/.exec(entry.output)?.[1]);
        // Its own banner names the port: another program already listening there does not count.
        return (port && entry.output.includes(`:${port}`) && (await portOpen(port))) || undefined;
      },
      `\`${entry.command}\` listening on ${asked || 'the port it picked'}`,
      60_000,
    );
    answered.add(entry.child);
  }
}

/** The background processes that have answered on their port. */
const answered = new WeakSet<object>();

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
