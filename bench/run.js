// npm run bench [-- --quick]: measures the sandbox against the targets of issues 2 and 8 and
// prints one table; the full run also writes docs/benchmarks.md. Runs against the build in
// dist/ (npm run build first). Missed targets are printed, never fatal; a crash, a broken
// endpoint or a lost acknowledged payment exits non-zero.
import { benchThroughput } from './throughput.js';
import { benchPeer } from './peer.js';
import { benchWebhookLatency, benchDeliveries } from './webhooks.js';
import { benchStartup } from './startup.js';
import { benchRows } from './rows.js';
import { benchDurability } from './durability.js';
import { benchLocked } from './locked.js';
import { benchJournal } from './journal.js';
import { benchDeadReceiver } from './dead-receiver.js';
import { benchRecurring } from './recurring.js';
import { benchOneAtATime } from './one-at-a-time.js';
import { closeAgent } from './lib/http.js';
import { cleanupTemp, killAll } from './lib/processes.js';
import { startReceiver } from './lib/receiver.js';
import { Report } from './lib/report.js';
import { writeBenchDoc } from './lib/bench-doc.js';

const quick = process.argv.includes('--quick');
// --only <section> (e.g. --only throughput) runs one section while working on it; no doc is written.
const onlyIndex = process.argv.indexOf('--only');
const only = onlyIndex > 0 ? process.argv[onlyIndex + 1] : undefined;
const startedAt = performance.now();

/**
 * How long each measurement runs: ~1 s in quick mode (CI), ~5 s in the full run; quick mode also
 * ends runs within 100 ms of their length (autocannon's sample tick) and waits for a quiet server
 * in 100 ms windows rather than 300 ms (bench/method.md, "Quick mode").
 */
const settings = quick
  ? { quick, timing: { warmupSeconds: 0.3, seconds: 1, sampleMs: 100 }, settleWindowMs: 100 }
  : { quick, timing: { warmupSeconds: 1, seconds: 5 }, settleWindowMs: 300 };

const SECTIONS = [
  ['throughput', benchThroughput],
  ['peer', benchPeer],
  ['one at a time', benchOneAtATime],
  ['webhook latency', benchWebhookLatency],
  ['webhook deliveries', benchDeliveries],
  ['start-up', benchStartup],
  ['stored rows', benchRows],
  ['kill -9 durability', benchDurability],
  ['locked database', benchLocked],
  ['journal', benchJournal],
  ['dead receiver', benchDeadReceiver],
  ['recurring', benchRecurring],
];

async function main() {
  const report = new Report();
  const receiver = await startReceiver();
  const ctx = { ...settings, report, receiver };
  console.log(`paysandbox bench (${quick ? 'quick' : 'full'} mode)`);
  try {
    const chosen = SECTIONS.filter(([name]) => only === undefined || name === only);
    if (chosen.length === 0)
      throw new Error(`--only ${only}: no such section; the sections are ${SECTIONS.map(([name]) => `"${name}"`).join(', ')}`);
    for (const [name, section] of chosen) {
      const t0 = performance.now();
      console.log(`- ${name}...`);
      try {
        await section(ctx);
      } catch (err) {
        report.problem(`${name} crashed: ${err.stack ?? err}`);
      }
      console.log(`  (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    }
  } finally {
    await receiver.close();
  }
  const seconds = (performance.now() - startedAt) / 1000;
  console.log(`\n${report.text()}`);
  console.log(
    `\n${report.targets.length - report.misses.length} of ${report.targets.length} targets met; run took ${seconds.toFixed(0)} s`,
  );
  if (!quick && only === undefined) console.log(`wrote ${writeBenchDoc(report, { seconds })}`);
  return report.problems.length === 0;
}

main()
  .then((ok) => {
    process.exitCode = ok ? 0 : 1;
  })
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => {
    killAll();
    closeAgent();
    cleanupTemp();
  });
