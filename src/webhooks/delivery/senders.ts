// Where the HTTP side of delivery runs. On a sender thread (node:worker_threads) when the compiled
// entry is there (dist/webhooks/delivery/sender-thread.js: the CLI, and the library from its package), so
// connections, request writes and answers cost the main thread nothing; on the main thread (the
// same send-loop.ts) when the code runs from its TypeScript source, where Node cannot start a
// thread from it, unless it is given a compiled entry (the test suite bundles one: test/setup/).
// A thread that dies is started again and its attempts in flight are sent again; one that dies 3
// times in a minute gives way to the main thread for good.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CODE_DIR } from '../../code-dir.js';
import type { Logger } from '../../runtime/logger.js';
import { SendLoop, type SendJob, type SendResult, type SendSettings } from './send-loop.js';
import { errorMessage } from '../../errors.js';

/** Sends jobs; results come back through the callback it was made with. */
export interface Sender {
  readonly mode: 'thread' | 'in-process';
  send(jobs: SendJob[]): void;
  /** Ends the sender (its thread, its connections); call once no job is in flight. */
  close(): Promise<void>;
}

/** The compiled thread entry, next to the running code. */
const THREAD_ENTRY = new URL('webhooks/delivery/sender-thread.js', CODE_DIR);
/** Deaths of a thread within a minute that make the sender give up on threads. */
const DEATHS_TO_GIVE_UP = 3;

/** The HTTP side on the main thread. */
class LocalSender implements Sender {
  readonly mode = 'in-process';
  private readonly loop: SendLoop;

  constructor(settings: SendSettings, onResults: (results: SendResult[]) => void) {
    this.loop = new SendLoop(settings, onResults);
  }

  send(jobs: SendJob[]): void {
    this.loop.run(jobs);
  }

  async close(): Promise<void> {
    this.loop.close();
  }
}

/** The HTTP side on a thread of its own, started again when it dies. */
class ThreadSender implements Sender {
  private thread: Worker;
  private readonly pending = new Map<number, SendJob>();
  private deaths: number[] = [];
  private fallback: LocalSender | undefined;
  private closing = false;

  constructor(
    private readonly settings: SendSettings,
    private readonly onResults: (results: SendResult[]) => void,
    private readonly logger: Logger,
    private readonly entry: URL,
  ) {
    this.thread = this.spawn();
  }

  get mode(): 'thread' | 'in-process' {
    return this.fallback ? 'in-process' : 'thread';
  }

  /** The running thread (tests end it to check that it is started again). */
  get worker(): Worker {
    return this.thread;
  }

  send(jobs: SendJob[]): void {
    if (this.fallback) {
      this.fallback.send(jobs);
      return;
    }
    for (const job of jobs) this.pending.set(job.key, job);
    // Held open only while attempts are in flight: an idle sender never keeps the process alive.
    this.thread.ref();
    this.thread.postMessage(jobs);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.thread.terminate();
    await this.fallback?.close();
  }

  private spawn(): Worker {
    const thread = new Worker(this.entry, {
      workerData: this.settings,
      execArgv: [],
      // A few dozen requests in flight: a small heap keeps the thread's memory small.
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
    });
    thread.unref();
    let failure: Error | undefined;
    thread.on('message', (results: SendResult[]) => {
      for (const { key } of results) this.pending.delete(key);
      if (this.pending.size === 0) thread.unref();
      this.onResults(results);
    });
    thread.on('error', (err) => (failure = err));
    thread.on('exit', (code) => this.exited(thread, failure?.message ?? `exit code ${code}`));
    return thread;
  }

  /** A thread ended without being asked to: start another, and send its attempts in flight again. */
  private exited(thread: Worker, why: string): void {
    if (this.closing || thread !== this.thread) return;
    const lost = [...this.pending.values()];
    const now = Date.now();
    this.deaths = [...this.deaths.filter((at) => at > now - 60_000), now];
    const again = `${lost.length} attempt${lost.length === 1 ? '' : 's'} in flight ${lost.length === 1 ? 'is' : 'are'} sent again`;
    if (this.deaths.length >= DEATHS_TO_GIVE_UP) {
      this.logger.error(
        `webhook sender thread stopped (${why}), ${DEATHS_TO_GIVE_UP} times in a minute; webhooks are sent from the main thread from now on; ${again}`,
      );
      this.pending.clear();
      this.fallback = new LocalSender(this.settings, this.onResults);
      if (lost.length) this.fallback.send(lost);
      return;
    }
    this.logger.error(`webhook sender thread stopped (${why}); started again; ${again}`);
    this.pending.clear();
    this.thread = this.spawn();
    if (lost.length) this.send(lost);
  }
}

/** Where the HTTP side may run: a thread if its compiled entry is there, else (or when asked) the main thread. */
export type SenderPlace = 'thread' | 'in-process';

/** The place used by default: a thread when the compiled entry (by default the one next to the running code) exists. */
export function defaultSenderPlace(entry: URL = THREAD_ENTRY): SenderPlace {
  return existsSync(fileURLToPath(entry)) ? 'thread' : 'in-process';
}

/** A sender in `place` (a thread runs `entry`); a thread that cannot be started gives way to the main thread (logged). */
export function createSender(
  place: SenderPlace,
  settings: SendSettings,
  onResults: (results: SendResult[]) => void,
  logger: Logger,
  entry: URL = THREAD_ENTRY,
): Sender {
  if (place === 'in-process') return new LocalSender(settings, onResults);
  try {
    return new ThreadSender(settings, onResults, logger, entry);
  } catch (err) {
    logger.error(`webhook sender thread could not start (${errorMessage(err)}); webhooks are sent from the main thread`);
    return new LocalSender(settings, onResults);
  }
}
