// The request journal's cost: the same POST /v1/payments against a sandbox with the journal off
// (--journal-size 0) and one with it on (the default), measured alternately so the machine's drift
// hits both; the figure is the server's CPU per request, on over off (target: at most 1.05), and
// the same for its main thread alone.
import { measure } from './lib/load.js';
import { startSandbox, tempPath } from './lib/processes.js';
import { jsonHeaders, v1PaymentFields } from './lib/bodies.js';

/** Rounds of off-then-on measurements; the ratio is of the sums. */
const ROUNDS = 3;

/** Runs the journal section and adds its row to the report. */
export async function benchJournal(ctx) {
  const { report, timing, receiver, quick } = ctx;
  // Started side by side: nothing is measured until both are up.
  const [off, on] = await Promise.all([
    startSandbox({ db: tempPath('journal-off', '.db'), flags: ['--journal-size', '0'] }),
    startSandbox({ db: tempPath('journal-on', '.db') }),
  ]);
  const create = {
    method: 'POST',
    path: '/v1/payments',
    headers: jsonHeaders(true),
    body: JSON.stringify(v1PaymentFields({ webhookUrl: `${receiver.url}/journal` })),
  };
  try {
    const cpu = { off: 0, on: 0 };
    const main = { off: 0, on: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      // Quick mode warms each sandbox up in the first round only: it stays warm for the next ones.
      const roundTiming = quick && round > 0 ? { ...timing, warmupSeconds: 0 } : timing;
      const offRun = await measure(off.url, create, roundTiming, off.pid);
      const onRun = await measure(on.url, create, roundTiming, on.pid);
      cpu.off += offRun.cpuUsPerRequest;
      cpu.on += onRun.cpuUsPerRequest;
      main.off += offRun.mainCpuUsPerRequest;
      main.on += onRun.mainCpuUsPerRequest;
    }
    const ratio = cpu.on / cpu.off;
    // A round with no answered request (a machine too busy for the quick mode's second) has no figure.
    if (!Number.isFinite(ratio))
      return report.problem('journal: a round got no answer; run the full bench (npm run bench -- --only journal)');
    report.measure({
      group: 'journal',
      name: `POST /v1/payments CPU per request, journal on / off (${(cpu.on / ROUNDS).toFixed(0)} / ${(cpu.off / ROUNDS).toFixed(0)} us)`,
      figure: ratio.toFixed(3),
      target: '<= 1.05',
      pass: ratio <= 1.05,
    });
    // The main thread (the one SQLite writer) is what caps throughput: the journal's share of it.
    report.measure({
      group: 'journal',
      name: `POST /v1/payments main-thread CPU per request, journal on / off (${(main.on / ROUNDS).toFixed(0)} / ${(main.off / ROUNDS).toFixed(0)} us)`,
      figure: (main.on / main.off).toFixed(3),
    });
  } finally {
    await off.stop();
    await on.stop();
  }
}
