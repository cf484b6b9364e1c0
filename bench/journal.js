// The request journal's cost: the same POST /v1/payments against a sandbox with the journal off
// (--journal-size 0) and one with it on (the default), measured alternately so the machine's drift
// hits both; the figure is the server's CPU per request, on over off, and the same for its main
// thread alone. Issue 35 asked for at most 1.05; the full run also measures the least a masked
// journal costs (bench/journal-limit.js: a row per request in a server that does nothing else),
// which is more than that 5 % of the sandbox's create, so the ratio is reported, not counted as a
// target (docs/benchmarks.md, "The request journal's cost").
import { measure } from './lib/load.js';
import { measureJournalLimit } from './journal-limit.js';
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
  const cpu = { off: 0, on: 0 };
  const main = { off: 0, on: 0 };
  try {
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
  if (quick) return;
  // The floor, in the same sitting: a masked row per request in the least server, as a share of
  // the sandbox's create without the journal (the 5 % asked for), and against the sandbox's own cost.
  const least = await measureJournalLimit({ receiver, designs: ['none', 'row'], rounds: ROUNDS, timing });
  const floorUs = least.row.cpuUs - least.none.cpuUs;
  const sandboxUs = (cpu.on - cpu.off) / ROUNDS;
  report.measure({
    group: 'journal',
    name: `least a masked journal row costs (bench/journal-limit.js, ${least.row.cpuUs.toFixed(0)} / ${least.none.cpuUs.toFixed(0)} us), as a share of the sandbox's create`,
    figure: (floorUs / (cpu.off / ROUNDS)).toFixed(3),
  });
  report.measure({
    group: 'journal',
    name: `the sandbox's journal per create against that least (${sandboxUs.toFixed(0)} / ${floorUs.toFixed(0)} us)`,
    figure: (sandboxUs / floorUs).toFixed(2),
  });
}
