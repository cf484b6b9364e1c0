// The entry of the webhook sender thread (node:worker_threads): it runs the HTTP side of delivery
// (send-loop.ts) off the main thread, which keeps the database, claims and records. Messages in
// and out are batches: jobs from the main thread, results back, at most one each per turn.
import { parentPort, workerData } from 'node:worker_threads';
import { SendLoop, type SendJob, type SendSettings } from './send-loop.js';

if (!parentPort) throw new Error('sender-thread.js runs as a worker thread of the sandbox (senders.ts starts it)');
const port = parentPort;
const loop = new SendLoop(workerData as SendSettings, (results) => port.postMessage(results));
port.on('message', (jobs: SendJob[]) => loop.run(jobs));
