// Runs a page's shell examples in order, in a fresh project, as a reader would paste them into one
// terminal: the commands of a page share one bash, so a variable set by one example is there for
// the next. Long-running commands (start, receive, listen, a Prism proxy) go to the background, as
// the reader opens a second terminal for them; one that is already running is not started twice.
// Every command runs exactly as printed: an id a command needs comes from the command before it
// (`PAY=$(... | jq -r .id)`), never from the page's sample answers.
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
const LONG_RUNNING = /\b(?:sandbox|paysandbox) (?:start|receive|listen)\b|\bprism-cli proxy\b/;

/**
 * A bash function that runs `npx sandbox ...` and `npx paysandbox ...` as npx runs them in a
 * project that has the package installed, without npm's own start-up (about 1 s of CPU per command,
 * more than the CLI's; a page runs dozens). For a command that names no package, npx (libnpmexec)
 * looks for the name among the bins of the project's node_modules/.bin and, when it is there, runs
 * it with that folder first on PATH; our CLI reads nothing of what npm adds to the environment
 * (src/config.ts reads SANDBOX_* only). Anywhere else (another folder, another package, a flag
 * before the name) it is the real npx. The README's walk-through, every background command (start,
 * receive, listen: npm's process chain is what `sandbox start` watches) and every workflow run
 * through the real npx; readme.test.ts checks that both resolve `sandbox` to the same file.
 */
export function npxStandIn(dir: string): string {
  return `npx() {
  if [ "$PWD" = '${dir}' ] && { [ "$1" = sandbox ] || [ "$1" = paysandbox ]; } && [ -x "node_modules/.bin/$1" ]; then
    local bin="$PWD/node_modules/.bin/$1"
    shift
    PATH="$PWD/node_modules/.bin:$PATH" "$bin" "$@"
  else
    command npx "$@"
  fi
}
`;
}

/** Runs shell examples against one project; stop() ends every background process. */
export class DocRunner {
  readonly background: { command: string; child: ChildProcess; stdout: string; output: string }[] = [];
  private shell: ChildProcessWithoutNullStreams | undefined;
  /** Whether the next terminal runs `npx sandbox` through npxStandIn rather than npm. */
  private standIn = false;

  constructor(readonly project: PackedProject) {}

  /** Runs every command of a shell block; background ones are started and left running. */
  async runBlock(text: string, timeoutMs = 60_000): Promise<CommandRun[]> {
    const runs: CommandRun[] = [];
    for (const command of shellCommands(text)) {
      if (LONG_RUNNING.test(command)) this.startBackground(command);
      else runs.push(await this.run(command, timeoutMs));
    }
    return runs;
  }

  /**
   * Starts a new terminal for the next page: its variables do not leak into the next page's. With
   * `npx: 'stand-in'`, its foreground `npx sandbox` commands run through npxStandIn.
   */
  newShell({ npx = 'real' }: { npx?: 'real' | 'stand-in' } = {}): void {
    this.standIn = npx === 'stand-in';
    const shell = this.shell;
    this.shell = undefined;
    if (!shell) return;
    shell.stdin.end();
    // What a page started with a trailing `&` in its own terminal (webhook-audit.md's handler) ends
    // with the terminal, even when the page failed before its `kill`: the bash leads a group of its own.
    if (shell.exitCode === null && shell.pid !== undefined) {
      try {
        process.kill(-shell.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    }
  }

  /** Runs one command to its end in the page's bash, in the project directory. */
  run(command: string, timeoutMs = 60_000): Promise<CommandRun> {
    if (!this.shell) {
      this.shell = spawn('bash', ['--noprofile', '--norc'], { cwd: this.project.dir, env: this.project.env, detached: true });
      if (this.standIn) this.shell.stdin.write(npxStandIn(this.project.dir));
    }
    const shell = this.shell;
    const mark = `__docs_${randomBytes(6).toString('hex')}`;
    return new Promise((resolve, reject) => {
      let stdout = '';
      let stderr = '';
      const done = new RegExp(`\\n${mark} (\\d+)\\n$`);
      const check = () => {
        const code = done.exec(stdout)?.[1];
        if (code === undefined || !stderr.endsWith(`${mark}\n`)) return;
        finish();
        resolve({
          command,
          code: Number(code),
          stdout: stdout.slice(0, stdout.lastIndexOf(`\n${mark}`)),
          stderr: stderr.slice(0, -mark.length - 1),
        });
      };
      const onOut = (chunk: Buffer) => {
        stdout += chunk.toString();
        check();
      };
      const onErr = (chunk: Buffer) => {
        stderr += chunk.toString();
        check();
      };
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
      shell.stdin.write(
        `{ ${command}\n} </dev/null; __docs_status=$?; printf '\\n%s %d\\n' ${mark} $__docs_status; printf '%s\\n' ${mark} >&2; (exit $__docs_status)\n`,
      );
    });
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

  /** The newest background process started for `command` (or the same command as `npx sandbox`). */
  startedAs(command: string): DocRunner['background'][number] | undefined {
    return this.background.findLast((entry) => sameProgram(entry.command) === sameProgram(command));
  }

  private startBackground(command: string): void {
    // The reader's second terminal already runs it (the README started the sandbox and receiver).
    if (this.startedAs(command)?.child.exitCode === null) return;
    // Its own process group, as a second terminal is: stop() signals the group. A trailing `&`
    // (the page starts it in the background of the same terminal) is what the group already does.
    const child = spawn('bash', ['-c', `exec ${command.replace(/\s*&\s*$/, '')}`], {
      cwd: this.project.dir,
      env: this.project.env,
      detached: true,
    });
    const entry = { command, child, stdout: '', output: '' };
    child.stdout.on('data', (chunk: Buffer) => {
      entry.stdout += chunk.toString();
      entry.output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => (entry.output += chunk.toString()));
    this.background.push(entry);
  }
}

/** `npx paysandbox X` and `npx sandbox X` run the same program. */
function sameProgram(command: string): string {
  return command.replace(/\bnpx paysandbox\b/g, 'npx sandbox');
}
