// WAL checkpoints off the request path. SQLite's automatic checkpoint runs inside whichever commit
// crosses the threshold, so one request in a few hundred paid for copying the whole WAL into the
// database. Here a worker thread with its own connection does it on the other core: PASSIVE
// checkpoints (they never block the writer) several times a second, and once the WAL holds more
// than RESTART_FRAMES a RESTART, so the next write starts the WAL file over; journal_size_limit
// (open-database.ts) keeps the file itself small. A RESTART holds the write lock while it copies
// the last frames and syncs the database file, which stalls requests for a few milliseconds, so
// it comes rarely: at 4 096 frames (16 MiB) a /v1/payments load ran one every quarter second and
// its p99 was 15-29 ms; at 16 384 frames (64 MiB) 13-15 ms (three alternating runs each).
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import type { Db } from './open-database.js';

const RESTART_FRAMES = 16_384;

const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const checkpoint = () => {
  try {
    const [passive] = db.pragma('wal_checkpoint(PASSIVE)');
    if (passive.log > workerData.restartFrames) db.pragma('wal_checkpoint(RESTART)');
  } catch { /* busy: next time */ }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => { clearInterval(timer); checkpoint(); db.close(); parentPort.close(); });
`;

/** A running checkpointer; stop() before closing the database. */
export interface Checkpointer {
  stop(): Promise<void>;
}

/** Starts checkpointing `db` (a file database in WAL mode) from a worker thread. */
export function startCheckpointer(db: Db, intervalMs = 200): Checkpointer {
  if (db.memory) return { stop: async () => {} };
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { path: db.name, driver, intervalMs, restartFrames: RESTART_FRAMES },
  });
  worker.unref();
  // Only once the worker runs; if it fails, SQLite's own checkpoints come back on.
  worker.once('online', () => db.open && db.pragma('wal_autocheckpoint = 0'));
  worker.on('error', () => db.open && db.pragma('wal_autocheckpoint = 4000'));
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        // Unreferenced, the worker's exit could not hold the process open: `sandbox start` ran out of
        // work before it, exited with 13 (an unsettled top-level await) and skipped the last
        // db.close(); a library user's close() never resolved.
        worker.ref();
        worker.postMessage('stop');
        // A worker stuck in a busy checkpoint is not worth waiting for: the last close checkpoints anyway.
        setTimeout(() => void worker.terminate(), 2000).unref();
      }),
  };
}
