// kill -9 in the middle of a burst of creates: every payment the sandbox acknowledged (a whole
// 200 answer received) must exist after a restart on the same database file.
import { request, pool } from './lib/http.js';
import { startSandbox, tempPath } from './lib/processes.js';
import { CARDS, s2sFields, uniqueReference } from './lib/bodies.js';

/** Runs the durability check; a lost payment is a problem (non-zero exit), not a missed target. */
export async function benchDurability(ctx) {
  const { report, quick, receiver } = ctx;
  const db = tempPath('durability', '.db');
  const burstMs = quick ? 700 : 2000;
  const lanes = 10;
  const acknowledged = [];
  let failedInFlight = 0;
  const sandbox = await startSandbox({ db });
  let killedAt;
  const kill = () => {
    killedAt ??= performance.now();
    sandbox.kill();
  };
  // The burst is timed from the first acknowledged create: on a busy machine a fresh sandbox's
  // first answers can take longer than the whole quick burst (0 acknowledged at load 10). If none
  // is acknowledged within 15 s more, the kill comes anyway and the run reports the problem.
  let killer = setTimeout(kill, burstMs + 15_000);
  const acknowledge = (transId) => {
    if (acknowledged.push(transId) === 1) {
      clearTimeout(killer);
      killer = setTimeout(kill, burstMs);
    }
  };
  try {
    await Promise.all(
      Array.from({ length: lanes }, async (_, lane) => {
        for (let i = 0; killedAt === undefined; i++) {
          // Alternate the two kinds of create: approved at once (with a webhook) and Pending.
          const card = (i + lane) % 2 === 0 ? CARDS.frictionless : CARDS.challenge;
          try {
            const res = await request(`${sandbox.url}/api/s2s`, {
              method: 'POST',
              body: s2sFields({ card, reference: uniqueReference('k'), webhookUrl: `${receiver.url}/durability` }),
              timeoutMs: 5000,
            });
            if (res.status === 200 && res.json?.transID) acknowledge(res.json.transID);
            else if (killedAt === undefined) throw new Error(`a create answered ${res.status} before the kill: ${res.text.slice(0, 200)}`);
          } catch (err) {
            if (killedAt === undefined) throw err;
            failedInFlight += 1;
          }
        }
      }),
    );
  } finally {
    clearTimeout(killer);
    await sandbox.kill();
  }

  const restarted = await startSandbox({ db });
  let found = 0;
  try {
    const answers = await pool(acknowledged.length, 10, (i) => request(`${restarted.url}/_sandbox/transactions/${acknowledged[i]}`));
    found = answers.filter((res, i) => res.status === 200 && res.json?.transID === acknowledged[i]).length;
  } finally {
    await restarted.stop();
  }
  const figure = `${acknowledged.length} acknowledged, ${found} found after restart (${failedInFlight} requests cut by the kill)`;
  report.measure({
    group: 'durability',
    name: `kill -9 ${burstMs} ms after the first acknowledged create, creates at ${lanes} connections`,
    figure,
    target: 'every acknowledged payment survives kill -9',
    pass: found === acknowledged.length && found > 0,
  });
  if (found !== acknowledged.length || found === 0) report.problem(`durability: ${figure}`);
}
