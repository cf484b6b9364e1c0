// A sandbox (library, in this process) whose outbox the bench fills while the delivery worker is
// stopped, then drains at a chosen concurrency. Messages from the parent: fill, go, status, close.
// argv: ready file, database path, webhook URL, attempts in flight at most.
import { writeFileSync } from 'node:fs';
import { loadConfig, startServer } from '../../dist/index.js';
import { CARDS, s2sFields, uniqueReference } from '../lib/bodies.js';

const [readyFile, db, webhookUrl, maxInFlight] = process.argv.slice(2);
const running = await startServer(loadConfig({ port: 0, db, quiet: true, retry: 'dev' }, {}), { maxInFlight: Number(maxInFlight) });
await running.worker.stop();
const count = (status) => running.db.prepare('SELECT COUNT(*) FROM deliveries WHERE status = ?').pluck().get(status);

async function fill(n) {
  for (let i = 0; i < n; i++) {
    const body = JSON.stringify(s2sFields({ card: CARDS.frictionless, reference: uniqueReference('o'), webhookUrl }));
    const res = await running.app.request('/api/s2s', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    if (res.status !== 200) throw new Error(`filling the outbox: a create answered ${res.status}: ${await res.text()}`);
    // Back to the event loop now and then, as requests over a socket would: V8 keeps objects
    // behind WeakRefs (each Request's AbortSignal) until the current task ends.
    if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
  }
  return { pending: count('pending') };
}

async function settled(expected) {
  // The receiver has every webhook; wait (with a deadline) for the worker to record the last answers.
  const deadline = Date.now() + 30_000;
  while (count('pending') > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  const succeeded = count('succeeded');
  return { succeeded, other: expected - succeeded };
}

process.on('message', (message) => {
  const answer = (promise) =>
    promise.then(
      (result) => process.send({ type: message.type, ...result }),
      (err) => process.send({ type: 'error', message: err.message }),
    );
  if (message.type === 'fill') answer(fill(message.count));
  else if (message.type === 'go') running.worker.start();
  else if (message.type === 'status') answer(settled(message.count));
  else if (message.type === 'close') running.close().then(() => process.exit(0));
});
writeFileSync(readyFile, `${running.url}\n`);
