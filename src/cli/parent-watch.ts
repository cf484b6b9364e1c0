// Stops `sandbox start` when the process that started it goes away, even by SIGKILL, which no
// process can pass on. That process is the sandbox's parent, except where npm put its own shell
// in between: `npx sandbox start` and `npm start` run the bin as `sh -c ...` under npm, and
// killing npm leaves that shell alive (re-parented), so watching the parent alone left the
// sandbox running, holding the port and the CI step's output pipe. The watch therefore follows
// the chain up through such shells to npm itself, and stops the sandbox when any process of the
// chain has gone. It goes no further: an npx that outlives the script (or CI step) that started it
// keeps its sandbox, as a GitHub Actions step that starts the sandbox for the next steps needs.
// Linux reads /proc (a process's start time guards against a reused pid); elsewhere `ps` names the
// chain once at start-up and kill(pid, 0) tells whether each one is still there.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** One process the watch follows. */
export interface WatchedProcess {
  pid: number;
  /** Its command name, for the line the sandbox prints when it stops (npm, sh, bash...). */
  name: string;
}

interface ProcessInfo extends WatchedProcess {
  ppid: number;
  args: string[];
  /** From /proc: the start time in clock ticks, so a pid reused by a new process is not taken for the old one. */
  startedAt?: string;
}

/** The fields of /proc/<pid>/stat after the command: the command may hold spaces and ')' itself. */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Process names npm's own processes carry: its bins, or the title it sets ("npm exec ..."). */
const NPM = /^(npm|npx)(-cli\.js)?$/;
/** The shells npm runs scripts and bins with (its script-shell). */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh']);

function processInfo(pid: number): ProcessInfo | undefined {
  const stat = procStat(pid);
  if (stat) {
    let args: string[] = [];
    let name = '';
    try {
      // A process that set its title (npm does) has one string with spaces instead of NUL-separated arguments.
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').split(/\0/);
      if (args.length === 1) args = args[0].split(' ');
      name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      // Gone meanwhile: the watch finds it gone at its first look.
    }
    return { pid, ppid: Number(stat[1]), name, args, startedAt: stat[19] };
  }
  if (process.platform === 'win32') return undefined;
  try {
    const [ppid, ...args] = execFileSync('ps', ['-o', 'ppid=,args=', '-p', String(pid)], { encoding: 'utf8' })
      .trim()
      .split(/\s+/);
    return { pid, ppid: Number(ppid), name: basename(args[0] ?? ''), args };
  } catch {
    return undefined;
  }
}

const isNpm = (p: ProcessInfo) => NPM.test(p.name) || p.args.slice(0, 3).some((arg) => NPM.test(basename(arg)));
const isShellRunningCommand = (p: ProcessInfo) => SHELLS.has(basename(p.args[0] ?? p.name).replace(/^-/, '')) && p.args[1] === '-c';

/**
 * The chain the watch follows: the parent, and while that is a `sh -c` npm started, npm above it.
 * Empty when the parent is init, which never exits.
 */
function watchedChain(ppid = process.ppid): ProcessInfo[] {
  // Started by init (pid 1), or pid 1 itself in a container (parent 0): nothing that could exit.
  if (ppid <= 1) return [];
  const parent = processInfo(ppid);
  if (!parent) return [{ pid: ppid, ppid: 0, name: 'parent', args: [] }];
  const chain = [parent];
  for (let current = parent; isShellRunningCommand(current); ) {
    const above = processInfo(current.ppid);
    if (!above || !isNpm(above)) break;
    // Named by its title ("npm exec", "npm start"): the kernel's name of it is cut at 15 characters.
    chain.push({ ...above, name: above.args.slice(0, 2).join(' ') });
    current = above;
  }
  return chain;
}

let procAvailable: boolean | undefined;

/** True once `watched` has exited: no such process, a zombie, or (on Linux) another process with its pid. */
function isGone(watched: ProcessInfo): boolean {
  const stat = procStat(watched.pid);
  if (stat) return stat[0] === 'Z' || (watched.startedAt !== undefined && stat[19] !== watched.startedAt);
  // With /proc, no entry means no process; without it, ask the kernel.
  procAvailable ??= procStat(process.pid) !== undefined;
  if (procAvailable) return true;
  try {
    process.kill(watched.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Calls `onGone` once, within `everyMs`, after a process of the watched chain exits, with the one
 * that went; returns a function that stops watching.
 */
export function watchParent(onGone: (gone: WatchedProcess) => void, everyMs = 250): () => void {
  const chain = watchedChain();
  if (chain.length === 0) return () => {};
  const timer = setInterval(() => {
    const gone = chain.find(isGone);
    if (gone) {
      clearInterval(timer);
      onGone({ pid: gone.pid, name: gone.name });
    }
  }, everyMs);
  // Watching must not keep a sandbox alive that is closing for another reason.
  timer.unref();
  return () => clearInterval(timer);
}
