// The cost of Node 20's async hooks to a create, isolated in one process: the built app (dist/) on a
// file database, run with app.fetch (no HTTP), 10 creates at a time, in rounds of 3 000 with the hooks
// off and on in turn (an AsyncLocalStorage's enterWith() turns them on as its run() does, disable()
// off), so a drift of the shared machine falls on both. Prints the CPU per create of each. Why the
// request path keeps no AsyncLocalStorage (src/store/group-commit.ts). Not part of `npm run bench`:
//   npm run build && node --max-semi-space-size=2 --max-old-space-size=1024 --v8-pool-size=1 bench/async-hooks-cost.js
import { AsyncLocalStorage } from 'node:async_hooks';
import { loadConfig } from '../dist/config.js';
import { startServer } from '../dist/server/start-server.js';
import { CREDS, v1PaymentFields } from './lib/bodies.js';
import { cleanupTemp, tempPath } from './lib/processes.js';

const ROUNDS = 12;
const PER_ROUND = 3000;
const server = await startServer(loadConfig({ port: 0, db: tempPath('hooks', '.db'), quiet: true }, {}), { front: false });
const body = JSON.stringify(v1PaymentFields({ webhookUrl: undefined }));
const headers = { 'content-type': 'application/json', authorization: `Bearer ${CREDS.apiKey}` };

/** CPU µs per create over `n` creates, 10 at a time. */
async function round(n) {
  let left = n;
  const lane = async () => {
    while (left-- > 0) {
      const res = await server.app.fetch(new Request('http://127.0.0.1/v1/payments', { method: 'POST', headers, body }));
      if (res.status !== 200) throw new Error(`create answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  const start = process.cpuUsage();
  await Promise.all(Array.from({ length: 10 }, lane));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const storage = new AsyncLocalStorage();
await round(2000);
const off = [];
const on = [];
for (let i = 0; i < ROUNDS; i++) {
  const hooks = i % 2 === 1;
  if (hooks) storage.enterWith({});
  (hooks ? on : off).push(await round(PER_ROUND));
  if (hooks) storage.disable();
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(
  `CPU per create, medians of ${ROUNDS / 2} rounds of ${PER_ROUND}: hooks off ${median(off).toFixed(0)} µs, on ${median(on).toFixed(0)} µs; on / off ${(median(on) / median(off)).toFixed(3)}`,
);
await server.close();
cleanupTemp();
