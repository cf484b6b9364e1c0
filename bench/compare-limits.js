// The limit servers against stripe-mock in alternating rounds, for the figures of bench/method.md's
// "The sandbox's rows at the limit": stripe-mock's create (STRIPE_MOCK, STRIPE_MOCK_SPEC,
// STRIPE_MOCK_FIXTURES as for the peer section) and each server named, the order reversed every
// other round; per server req/s, CPU per request (whole process and main thread, from /proc) and
// the median of each round's ratio to stripe-mock, with every round's. Not part of `npm run bench`:
//   node bench/compare-limits.js <rounds> <seconds> 'MODE=cs' 'MODE=cs JOURNAL=0' 'MODE=cg SCRIPT=../shared/peers/limit/minimal.mjs'
// A server is bench/limit-rows.mjs unless SCRIPT names another; its words are its environment.
import { resolve } from 'node:path';
import { measure } from './lib/load.js';
import { LIMIT_CREATE, LIMIT_ROWS_SCRIPT, startMinimal } from './lib/limit.js';
import { settle } from './lib/processes.js';
import { startReceiver } from './lib/receiver.js';
import { PEER_CREATE, startStripeMock } from './peer.js';

const [rounds = '8', seconds = '3', ...specs] = process.argv.slice(2);
if (!process.env.STRIPE_MOCK || specs.length === 0)
  throw new Error("usage: STRIPE_MOCK=<binary> node bench/compare-limits.js <rounds> <seconds> 'MODE=cs' ['MODE=ds LEAN=1' ...]");
const receiver = await startReceiver();
const servers = [{ name: 'stripe-mock create', request: PEER_CREATE, server: await startStripeMock() }];
for (const spec of specs) {
  const env = Object.fromEntries(spec.split(' ').map((word) => word.split('=')));
  const script = env.SCRIPT ? resolve(env.SCRIPT) : LIMIT_ROWS_SCRIPT;
  servers.push({
    name: spec,
    request: LIMIT_CREATE,
    server: await startMinimal(env.MODE, LIMIT_CREATE, `${receiver.url}/limit`, script, env),
  });
}
for (const one of servers) Object.assign(one, { ok: 0, seconds: 0, cpuUs: 0, mainUs: 0, total: 0, ratios: [] });
try {
  for (let round = 0; round < Number(rounds); round++) {
    const rates = new Map();
    for (const one of round % 2 ? [...servers].reverse() : servers) {
      await settle(one.server.pid, 5000, 300);
      const result = await measure(one.server.url, one.request, { seconds: Number(seconds), warmupSeconds: 0.5 }, one.server.pid);
      one.ok += result.ok;
      one.seconds += result.seconds;
      one.cpuUs += result.cpuUsPerRequest * result.total;
      one.mainUs += result.mainCpuUsPerRequest * result.total;
      one.total += result.total;
      rates.set(one, result.ok / result.seconds);
    }
    for (const one of servers) one.ratios.push(rates.get(one) / rates.get(servers[0]));
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  for (const one of servers)
    console.log(
      `${one.name}: ${Math.round(one.ok / one.seconds)} req/s, CPU ${Math.round(one.cpuUs / one.total)} µs per request (main thread ${Math.round(one.mainUs / one.total)} µs); x stripe-mock ${median(one.ratios).toFixed(2)} (rounds ${one.ratios.map((r) => r.toFixed(2)).join(' ')}); ${receiver.count} webhooks so far`,
    );
} finally {
  for (const one of servers) await one.server.stop();
  await receiver.close();
}
