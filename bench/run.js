// npm run bench [-- --quick]: measures the sandbox against the targets of issues 2 and 8 and
// prints one table; the full run also writes docs/benchmarks.md. Runs against the build in
// dist/ (npm run build first). Missed targets are printed, never fatal; a crash, a broken
// endpoint or a lost acknowledged payment exits non-zero.
import { benchThroughput } from './throughput.js';
import { benchWebhookLatency, benchDeliveries } from './webhooks.js';
import { benchStartup } from './startup.js';
import { benchRows } from './rows.js';
import { benchDurability } from './durability.js';
import { closeAgent } from './lib/http.js';
import { cleanupTemp, killAll } from './lib/processes.js';
import { startReceiver } from './lib/receiver.js';
import { Report } from './lib/report.js';
import { writeBenchDoc } from './lib/bench-doc.js';

const quick = process.argv.includes('--quick');
const startedAt = performance.now();

/** How long each measurement runs: ~1 s in quick mode (CI), ~5 s in the full run. */
const settings = quick
  ? { quick, timing: { warmupSeconds: 0.3, seconds: 1 } }
  : { quick, timing: { warmupSeconds: 1, seconds: 5 } };

const SECTIONS = [
  ['throughput', benchThroughput],
  ['webhook latency', benchWebhookLatency],
  ['webhook deliveries', benchDeliveries],
  ['start-up', benchStartup],
  ['stored rows', benchRows],
  ['kill -9 durability', benchDurability],
];

async function main() {
  const report = new Report();
  const receiver = await startReceiver();
  const ctx = { ...settings, report, receiver };
  console.log(`paysandbox bench (${quick ? 'quick' : 'full'} mode)`);
  try {
    for (const [name, section] of SECTIONS) {
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
  console.log('\n' + report.text());
  console.log(`\n${report.targets.length - report.misses.length} of ${report.targets.length} targets met; run took ${seconds.toFixed(0)} s`);
  if (!quick) console.log(`wrote ${writeBenchDoc(report, { seconds })}`);
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
