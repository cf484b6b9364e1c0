// How little a request journal can cost: the least server (bench/children/journal-limit.js: Hono,
// zod, a group commit of the payment's rows and its outbox row, the webhook sent from a sender
// thread) with no journal, a masked row per request, a masked segment per event-loop turn, and
// rows kept unmasked (the floor, which no journal may be), measured in alternating rounds as the
// sandbox's journal section is. The journal section of `npm run bench` runs it in full mode (none
// and row); run alone it measures every design:
//
//   node bench/journal-limit.js [rounds=6] [seconds=3]
import { pathToFileURL } from 'node:url';
import { measure } from './lib/load.js';
import { cleanupTemp, SANDBOX_NODE_FLAGS, startScript, tempPath } from './lib/processes.js';
import { startReceiver } from './lib/receiver.js';

/** Every design the least server has (bench/children/journal-limit.js says what each does). */
export const DESIGNS = ['none', 'row', 'segment', 'unmasked'];

/** A card create with a card number and CVV: what masking has most to do for. */
const CREATE = {
  method: 'POST',
  path: '/v1/payments',
  headers: { 'content-type': 'application/json', authorization: 'Bearer sk_test_sandbox' },
  body: JSON.stringify({
    amount: 1050,
    currency: 'EUR',
    description: 'order 1234',
    card: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvc: '123' },
  }),
};

/**
 * Measures `designs` of the least server in `rounds` alternating rounds; returns each one's
 * whole-process and main-thread CPU per request (µs, averaged over the rounds) and requests served.
 */
export async function measureJournalLimit({ receiver, designs = DESIGNS, rounds, timing }) {
  const servers = {};
  const sums = Object.fromEntries(designs.map((d) => [d, { cpu: 0, main: 0, requests: 0 }]));
  try {
    for (const design of designs)
      servers[design] = await startScript(
        'journal-limit.js',
        [`${receiver.url}/hook`, design, tempPath(`journal-limit-${design}`, '.db')],
        {
          nodeFlags: SANDBOX_NODE_FLAGS,
        },
      );
    for (let round = 0; round < rounds; round++) {
      for (const design of designs) {
        const server = servers[design];
        const run = await measure(server.url, CREATE, { ...timing, warmupSeconds: round === 0 ? timing.warmupSeconds : 0 }, server.pid);
        sums[design].cpu += run.cpuUsPerRequest;
        sums[design].main += run.mainCpuUsPerRequest;
        sums[design].requests += run.total;
      }
    }
  } finally {
    for (const server of Object.values(servers)) await server.stop();
  }
  return Object.fromEntries(
    designs.map((d) => [d, { cpuUs: sums[d].cpu / rounds, mainUs: sums[d].main / rounds, requests: sums[d].requests }]),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rounds = Number(process.argv[2] ?? 6);
  const seconds = Number(process.argv[3] ?? 3);
  const receiver = await startReceiver();
  try {
    const figures = await measureJournalLimit({ receiver, rounds, timing: { seconds, warmupSeconds: 1 } });
    const base = figures.none.cpuUs;
    for (const [design, f] of Object.entries(figures))
      console.log(
        `${design.padEnd(8)} ${String(f.requests).padStart(7)} requests  ${f.cpuUs.toFixed(0).padStart(4)} us/request (main thread ${f.mainUs.toFixed(0)})  x${(f.cpuUs / base).toFixed(3)}  journal ${(f.cpuUs - base).toFixed(0)} us`,
      );
  } finally {
    await receiver.close();
    cleanupTemp();
  }
  process.exit(0);
}
