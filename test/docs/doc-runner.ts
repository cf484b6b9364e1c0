// Runs a page's shell examples in order, in a fresh project, as a reader would paste them into one
// terminal: the commands of a page share one bash, so a variable set by one example is there for
// the next. Long-running commands (start, receive, listen) go to the background, as the reader opens
// a second terminal for them; one that is already running is not started twice. Where a page shows
// an id it cannot know (`whd_...`, `<transID|payment-id>`, the transID of a sample answer), the
// runner puts in the real one from what ran before: a sample answer's values are mapped to the real
// answer's, and placeholders take the newest id seen.
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { shellCommands } from './doc-blocks.js';
import type { PackedProject } from './packed-install.js';

/** What one foreground command did. */
export interface CommandRun {
  command: string;
  code: number;
  stdout: string;
  stderr: string;
}

/** Commands a reader runs in a second terminal. */
const LONG_RUNNING = /\bsandbox (start|receive|listen)\b/;
/** The prefixes of the sandbox's ids (`pay_...`, `whd_...`). */
const ID_PREFIXES = 'pay|re|rfd|cs|evt|whd|we|tok|cb|dp|st|stl|flt|mer';
/** An id a placeholder such as `whd_...` stands for. */
const ID_PATTERN = new RegExp(`\\b(?:${ID_PREFIXES})_[A-Za-z0-9]{6,}\\b`, 'g');
const TRANS_ID = /"transID"\s*:\s*"(\d{6,})"|transID=(\d{6,})/g;
/**
 * A word of sample output that differs from run to run: an id, a transID, a time, an elision, or
 * a port the system picked (`--port 0`: five digits, the ephemeral range; 4010 and 3000 are fixed).
 */
const VARIES = new RegExp(`\\b(?:${ID_PREFIXES}|req|whsec)_[A-Za-z0-9]|\\d{12,}|\\d{4}-\\d\\d-\\d\\d|\\d\\d:\\d\\d|\\.\\.\\.|…|:\\d{5}\\b`);

/** True when `text` (a word or a line of sample output) holds something that differs per run. */
export function varies(text: string): boolean {
  return VARIES.test(text);
}

/** Runs shell examples against one project; stop() ends every background process. */
export class DocRunner {
  readonly background: { command: string; child: ChildProcess; stdout: string; output: string }[] = [];
  private readonly values = new Map<string, string>();
  private readonly newest = new Map<string, string>();
  private shell: ChildProcessWithoutNullStreams | undefined;

  constructor(readonly project: PackedProject) {}

  /** Runs every command of a shell block; background ones are started and left running. */
  async runBlock(text: string, timeoutMs = 30_000): Promise<CommandRun[]> {
    const runs: CommandRun[] = [];
    for (const command of shellCommands(text)) {
      const ready = this.resolve(command);
      if (LONG_RUNNING.test(ready)) this.startBackground(ready);
      else runs.push(await this.run(ready, timeoutMs));
    }
    return runs;
  }

  /** Starts a new terminal for the next page: its variables do not leak into the next page's. */
  newShell(): void {
    this.shell?.stdin.end();
    this.shell = undefined;
  }

  /** Runs one command to its end in the page's bash, in the project directory. */
  run(command: string, timeoutMs = 30_000): Promise<CommandRun> {
    const shell = (this.shell ??= spawn('bash', ['--noprofile', '--norc'], { cwd: this.project.dir, env: this.project.env }));
    const mark = `__docs_${randomBytes(6).toString('hex')}`;
    return new Promise((resolve, reject) => {
      let stdout = '';
      let stderr = '';
      const done = new RegExp(`\\n${mark} (\\d+)\\n$`);
      const check = () => {
        const code = done.exec(stdout)?.[1];
        if (code === undefined || !stderr.endsWith(`${mark}\n`)) return;
        finish();
        const run = { command, code: Number(code), stdout: stdout.slice(0, stdout.lastIndexOf(`\n${mark}`)), stderr: stderr.slice(0, -mark.length - 1) };
        this.learnIds(run.stdout);
        resolve(run);
      };
      const onOut = (chunk: Buffer) => ((stdout += chunk.toString()), check());
      const onErr = (chunk: Buffer) => ((stderr += chunk.toString()), check());
      const timer = setTimeout(() => {
        finish();
        shell.kill('SIGKILL');
        this.shell = undefined;
        reject(new Error(`\`${command}\` did not finish within ${timeoutMs} ms; it printed: ${stdout}${stderr}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        shell.stdout.off('data', onOut);
        shell.stderr.off('data', onErr);
      };
      shell.stdout.on('data', onOut);
      shell.stderr.on('data', onErr);
      // stdin stays the script's: a command reads /dev/null, as it would read nothing typed.
      // `(exit $status)` gives the next command the `$?` this one left (`echo $?` on the page).
      shell.stdin.write(`{ ${command}\n} </dev/null; __docs_status=$?; printf '\\n%s %d\\n' ${mark} $__docs_status; printf '%s\\n' ${mark} >&2; (exit $__docs_status)\n`);
    });
  }

  /** Learns the real values behind a sample answer shown on the page (same keys, other values). */
  learnSample(sample: unknown, real: unknown): void {
    if (typeof sample === 'string' && typeof real === 'string') {
      if (sample !== real && sample.length >= 6 && !sample.includes('...')) this.values.set(sample, real);
    } else if (Array.isArray(sample) && Array.isArray(real)) {
      sample.forEach((item, index) => this.learnSample(item, real[index]));
    } else if (sample && real && typeof sample === 'object' && typeof real === 'object') {
      for (const [key, value] of Object.entries(sample)) this.learnSample(value, (real as Record<string, unknown>)[key]);
    }
  }

  /**
   * Learns the real ids behind a sample's text output: a real line with the same words where the
   * sample's are fixed says which real id each of the sample's ids stands for.
   */
  learnText(sample: string, real: string): void {
    const realLines = real.split('\n').map((line) => line.trim().split(/\s+/));
    for (const line of sample.split('\n')) {
      const words = line.trim().split(/\s+/);
      if (!words.some(varies)) continue;
      const match = realLines.find((got) => got.length === words.length && words.every((word, i) => varies(word) || word === got[i]));
      match?.forEach((word, i) => {
        if (varies(words[i]!) && words[i] !== word && !words[i]!.includes('...')) this.values.set(words[i]!, word);
      });
    }
  }

  /** The page's command with sample values and placeholders replaced by real ones. */
  resolve(command: string): string {
    let ready = command;
    for (const [sample, real] of this.values) ready = ready.split(sample).join(real);
    this.learnIds(this.background.map((b) => b.output).join('\n'));
    ready = ready.replace(/<transID\|payment-id>|<transID\|pay_id>|<transID>/g, () => this.need('transID'));
    ready = ready.replace(/\b([a-z]+)_[A-Za-z0-9]*\.\.\./g, (whole, prefix: string) => this.need(prefix, whole));
    return ready;
  }

  /**
   * Ends the background processes started from the `from`-th on (all by default, and the shell
   * with them; a page passes the count it found, to end only its own) and waits for each.
   */
  async stop(from = 0): Promise<void> {
    if (from === 0) this.newShell();
    const ending = this.background.splice(from);
    await Promise.all(
      ending.map(({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return undefined;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // The whole group: a reader's Ctrl-C reaches npx and the sandbox under it alike.
        process.kill(-child.pid!, 'SIGTERM');
        return exited;
      }),
    );
  }

  private startBackground(command: string): void {
    // The reader's second terminal already runs it (the README started the sandbox and receiver).
    if (this.background.some((entry) => entry.command === command && entry.child.exitCode === null)) return;
    // Its own process group, as a second terminal is: stop() signals the group. A trailing `&`
    // (the page starts it in the background of the same terminal) is what the group already does.
    const child = spawn('bash', ['-c', `exec ${command.replace(/\s*&\s*$/, '')}`], { cwd: this.project.dir, env: this.project.env, detached: true });
    const entry = { command, child, stdout: '', output: '' };
    child.stdout.on('data', (chunk: Buffer) => {
      entry.stdout += chunk.toString();
      entry.output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => (entry.output += chunk.toString()));
    this.background.push(entry);
  }

  private learnIds(text: string): void {
    for (const match of text.matchAll(ID_PATTERN)) this.newest.set(match[0].slice(0, match[0].indexOf('_')), match[0]);
    for (const match of text.matchAll(TRANS_ID)) this.newest.set('transID', (match[1] ?? match[2])!);
  }

  private need(prefix: string, shown = prefix): string {
    const id = this.newest.get(prefix);
    if (!id) throw new Error(`the page uses ${shown} before any earlier example printed such an id`);
    return id;
  }
}
