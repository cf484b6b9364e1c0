// The front thread started before the app is: a new thread spends about a tenth of a second
// booting Node and loading its bundle, and the main thread spends several times that loading and
// building the app, so `sandbox start` (src/cli/start.ts) starts the thread first and both happen
// at once, on two cores. The thread waits for its settings (port, TLS) and only then listens
// (front-thread.ts), so a start that fails for want of the database's lock (another sandbox has it)
// has listened on nothing; it is sent them while the app is built (start-server.ts).
// `sandbox start` starts it sooner still: bin/sandbox.js, before it imports anything else, with this
// module's compiled copy (a head start of 20-30 ms, the time Node takes to load dist/start.js and
// its modules under the sandbox's V8 flags); the bundle's own copy then takes that thread. So the
// thread is kept on globalThis, where both copies see one.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CODE_DIR } from '../../code-dir.js';
import type { FrontThreadSetting } from '../../config.js';
import type { FrontSettings } from './protocol.js';

/** The thread's entry: one file bundled by the build (scripts/bundle-cli.js), next to the running code. */
const THREAD_ENTRY = new URL('front-thread.js', CODE_DIR);

/** True when the front thread can run: its compiled entry is next to the running code (not under vitest's TypeScript). */
export function frontThreadAvailable(): boolean {
  return existsSync(fileURLToPath(THREAD_ENTRY));
}

/**
 * The fewest cores on which --front-thread auto parses HTTP on a thread of its own. On two, which a
 * CI runner and its test process share, the hand-off costs more than the thread takes off the main
 * one: `sandbox start` without it answered 7.6-15 % more creates and 9 % more charges at 10
 * connections, with 0.88-0.95 of the CPU per request, 20-23 MB less memory and its first answer
 * 31 ms sooner (bench/method.md, "One thread or two").
 */
const FRONT_THREAD_MIN_CORES = 3;

/** Whether HTTP runs on the front thread: `on` and `off` as said, `auto` with FRONT_THREAD_MIN_CORES or more; never without its entry. */
export function frontThreadWanted(setting: FrontThreadSetting): boolean {
  if (setting === 'off' || !frontThreadAvailable()) return false;
  return setting === 'on' || availableParallelism() >= FRONT_THREAD_MIN_CORES;
}

/**
 * The --front-thread setting as bin/sandbox.js sees it before the configuration is read: the flag's
 * last value or SANDBOX_FRONT_THREAD, auto for anything else (the configuration refuses it later,
 * and a thread started meanwhile is dropped).
 */
export function earlyFrontThreadSetting(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): FrontThreadSetting {
  let value = env.SANDBOX_FRONT_THREAD;
  argv.forEach((word, i) => {
    if (word === '--front-thread') value = argv[i + 1];
    else if (word.startsWith('--front-thread=')) value = word.slice('--front-thread='.length);
  });
  return value === 'on' || value === 'off' ? value : 'auto';
}

/** A front thread started early, with what went wrong in it before anyone listened to it. */
interface Early {
  worker: Worker;
  failure: Error | undefined;
}

const EARLY = Symbol.for('paysandbox.early-front-thread');
const shared = globalThis as { [EARLY]?: Early };

/**
 * Starts the front thread now, waiting for its settings; startFrontServer() takes it. Unreferenced
 * until taken, so a start that fails before then never waits for it.
 */
export function startFrontThreadEarly(setting: FrontThreadSetting): void {
  if (shared[EARLY] || !frontThreadWanted(setting)) return;
  const worker = new Worker(THREAD_ENTRY, { workerData: null, execArgv: [] });
  const started: Early = { worker, failure: undefined };
  // A thread whose code did not load: kept to be told by startFrontServer(), never thrown here.
  worker.on('error', (err) => (started.failure = err));
  worker.unref();
  shared[EARLY] = started;
}

/** Stops the thread started early when no server took it (a start that failed, or one without a front thread). */
export function dropEarlyFrontThread(): void {
  const dropped = shared[EARLY];
  shared[EARLY] = undefined;
  if (dropped) void dropped.worker.terminate();
}

/**
 * A front thread that listens as `settings` say: the one started early when there is one still
 * running, else a new one. `failure` is what went wrong in the early one before it was taken.
 */
export function takeFrontThread(settings: FrontSettings): { worker: Worker; failure: Error | undefined } {
  const taken = shared[EARLY];
  shared[EARLY] = undefined;
  // threadId is -1 once the thread has exited (its code failed): a new one fails again and says why.
  if (taken && taken.worker.threadId >= 0) {
    taken.worker.ref();
    taken.worker.postMessage(settings);
    return taken;
  }
  return { worker: new Worker(THREAD_ENTRY, { workerData: settings, execArgv: [] }), failure: undefined };
}
