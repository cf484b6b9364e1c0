// Runs a page's shell examples in order, in a fresh project, as a reader would paste them.
// Long-running commands (start, receive, listen) go to the background, as the reader opens a second
// terminal for them. Where a page shows an id it cannot know (`whd_...`, `<transID|payment-id>`,
// the transID of a sample answer), the runner puts in the real one from what ran before: a sample
// answer's values are mapped to the real answer's, and placeholders take the newest id seen.
import { spawn, type ChildProcess } from 'node:child_process';
import { shellCommands } from './doc-blocks.js';
import type { PackedProject } from './packed-install.js';

/** What one foreground command did. */
export interface CommandRun {
  command: string;
  code: number;
  stdout: string;
  stderr: string;
}

const LONG_RUNNING = /\bsandbox (start|receive|listen)\b/;
/** Id prefixes a placeholder such as `whd_...` stands for. */
const ID_PATTERN = /\b(?:pay|re|cs|evt|whd|we|tok|cb|stl|mer)_[A-Za-z0-9]{6,}\b/g;
const TRANS_ID = /"transID"\s*:\s*"(\d{6,})"|transID=(\d{6,})/g;

/** Runs shell examples against one project; stop() ends every background process. */
export class DocRunner {
  readonly background: { command: string; child: ChildProcess; stdout: string; output: string }[] = [];
  private readonly values = new Map<string, string>();
  private readonly newest = new Map<string, string>();

  constructor(private readonly project: PackedProject) {}

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

  /** Runs one command to its end through bash, in the project directory. */
  run(command: string, timeoutMs = 30_000): Promise<CommandRun> {
    return new Promise((resolve, reject) => {
      const child = spawn('bash', ['-c', command], { cwd: this.project.dir, env: this.project.env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`\`${command}\` did not finish within ${timeoutMs} ms; it printed: ${stdout}${stderr}`));
      }, timeoutMs);
      child.on('close', (code) => {
        clearTimeout(timer);
        this.learnIds(stdout);
        resolve({ command, code: code ?? 1, stdout, stderr });
      });
    });
  }

  /** Learns the real values behind a sample answer shown on the page (same keys, other values). */
  learnSample(sample: Record<string, unknown>, real: Record<string, unknown>): void {
    for (const [key, value] of Object.entries(sample)) {
      const actual = real[key];
      if (typeof value === 'string' && typeof actual === 'string' && value !== actual && value.length >= 6) this.values.set(value, actual);
    }
  }

  /** The page's command with sample values and placeholders replaced by real ones. */
  resolve(command: string): string {
    let ready = command;
    for (const [sample, real] of this.values) ready = ready.split(sample).join(real);
    this.learnIds(this.background.map((b) => b.output).join('\n'));
    ready = ready.replace(/<transID\|payment-id>|<transID\|pay_id>|<transID>/g, () => this.need('transID'));
    ready = ready.replace(/\b([a-z]+)_\.\.\./g, (whole, prefix: string) => this.need(prefix, whole));
    return ready;
  }

  /** Ends every background process and waits for each. */
  async stop(): Promise<void> {
    await Promise.all(
      this.background.map(({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return undefined;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // The whole group: a reader's Ctrl-C reaches npx and the sandbox under it alike.
        process.kill(-child.pid!, 'SIGTERM');
        return exited;
      }),
    );
  }

  private startBackground(command: string): void {
    // Its own process group, as a second terminal is: stop() signals the group.
    const child = spawn('bash', ['-c', `exec ${command}`], { cwd: this.project.dir, env: this.project.env, detached: true });
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
