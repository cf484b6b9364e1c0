// A receiver that is down: the same POST /v1/payments against a sandbox whose webhooks go to the
// live receiver and one whose webhooks go to a closed port (connection refused at once, retried
// on the dev schedule), measured alternately so the machine's drift hits both. Every create's
// webhook of the second joins a backlog that only grows; the outbox must not be read again for
// each retry (webhooks/delivery/queues.ts rewind): that once halved the sandbox's creates.
import { measure } from './lib/load.js';
import { freePort, startSandbox, tempPath } from './lib/processes.js';
import { jsonHeaders, v1PaymentFields } from './lib/bodies.js';

/** Rounds of live-then-dead measurements; the ratio is of the sums. */
const ROUNDS = 3;

/** Runs the dead-receiver section and adds its row to the report. */
export async function benchDeadReceiver(ctx) {
  const { report, timing, receiver, quick } = ctx;
  const closed = await freePort();
  // Started side by side: nothing is measured until both are up.
  const [live, dead] = await Promise.all([
    startSandbox({ db: tempPath('receiver-live', '.db') }),
    startSandbox({ db: tempPath('receiver-dead', '.db') }),
  ]);
  const create = (webhookUrl) => ({
    method: 'POST',
    path: '/v1/payments',
    headers: jsonHeaders(true),
    body: JSON.stringify(v1PaymentFields({ webhookUrl })),
  });
  try {
    const rps = { live: 0, dead: 0 };
    const cpu = { live: 0, dead: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      // Quick mode warms each sandbox up in the first round only: it stays warm for the next ones.
      const roundTiming = quick && round > 0 ? { ...timing, warmupSeconds: 0 } : timing;
      const liveRun = await measure(live.url, create(`${receiver.url}/live`), roundTiming, live.pid);
      const deadRun = await measure(dead.url, create(`http://127.0.0.1:${closed}/down`), roundTiming, dead.pid);
      rps.live += liveRun.rps;
      rps.dead += deadRun.rps;
      cpu.live += liveRun.mainCpuUsPerRequest;
      cpu.dead += deadRun.mainCpuUsPerRequest;
    }
    const ratio = rps.dead / rps.live;
    if (!Number.isFinite(ratio) || rps.live === 0)
      return report.problem('dead receiver: a round got no answer; run the full bench (npm run bench -- --only "dead receiver")');
    report.measure({
      group: 'dead receiver',
      name: `POST /v1/payments req/s, webhooks to a closed port / to a live receiver (${(rps.dead / ROUNDS).toFixed(0)} / ${(rps.live / ROUNDS).toFixed(0)}; main thread ${(cpu.dead / ROUNDS).toFixed(0)} / ${(cpu.live / ROUNDS).toFixed(0)} µs a create)`,
      figure: ratio.toFixed(2),
      target: '>= 0.8',
      pass: ratio >= 0.8,
    });
  } finally {
    await live.stop();
    await dead.stop();
  }
}
