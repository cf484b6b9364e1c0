// Stops `sandbox start` when the process that started it goes away. Wrappers (npx, npm start, a
// CI script's `&`) do not pass their death on: killing npx's pid left the sandbox running,
// orphaned, holding the job's stdout open. An orphan is re-parented (to init or a subreaper), so a
// changed parent pid is the signal; process.ppid is read once at start-up, hence /proc. Where
// there is no /proc (macOS), the original parent no longer existing is the signal instead.
import { readFileSync } from 'node:fs';

/** The current parent pid from /proc/self/stat, or undefined without /proc. */
function currentParentPid(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // "pid (command) state ppid ...": the command may hold spaces and parentheses, so start after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}

function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Calls `onGone` once, within `everyMs`, after the parent process exits; returns a function that stops watching. */
export function watchParent(onGone: () => void, everyMs = 500): () => void {
  const first = process.ppid;
  const timer = setInterval(() => {
    const now = currentParentPid();
    if (now === undefined ? isGone(first) : now !== first) {
      clearInterval(timer);
      onGone();
    }
  }, everyMs);
  // Watching must not keep a sandbox alive that is closing for another reason.
  timer.unref();
  return () => clearInterval(timer);
}
