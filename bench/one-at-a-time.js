// One request at a time, as a sequential test suite sends them: back to back, and after a 3 ms
// idle gap, which is where a sandbox that only looked fast under load showed it (a create answered
// in 0.45 ms back to back took 1.2-1.7 ms after a gap). Alternating request by request between the
// sandbox (`sandbox start`, HTTP where --front-thread auto puts it) and bare Hono, so both see the same machine:
// the gap's cost that bare Hono pays too is the machine's (waking an idle thread), the rest is the
// sandbox's. With LIMIT_MINIMAL, two of the limit folder's minimal servers join as the floor of each
// design: MODE=cg (HTTP, zod and one commit on one thread) and MODE=d (HTTP and zod on a front
// thread, SQLite on the main thread: the sandbox's design on three cores or more, with its two
// hand-offs a request), and bench/limit-rows.mjs's MODE=cs, the sandbox's own create rows written
// the one-thread way: the floor of a create that commits what the sandbox commits.
import http from 'node:http';
import { startSandbox, startScript, tempPath } from './lib/processes.js';
import { summarise } from './lib/stats.js';
import { jsonHeaders, v1PaymentFields } from './lib/bodies.js';
import { LIMIT_CREATE, LIMIT_ROWS_SCRIPT, startMinimal } from './lib/limit.js';

/** Gap before a request, in ms; 0 is back to back. */
const GAPS = [0, 3];

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One keep-alive request; resolves with its time in ms. */
function timed(url, { method, path, headers, body }) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(`${url}${path}`, { method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode >= 300 ? reject(new Error(`${method} ${path} answered ${res.statusCode}`)) : resolve(performance.now() - started),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the section: per row, p50 back to back and after the gap. */
export async function benchOneAtATime(ctx) {
  const { report, quick } = ctx;
  const rounds = quick ? 60 : 300;
  const sandbox = await startSandbox({ db: tempPath('one-at-a-time', '.db') });
  const bare = await startScript('bare-hono.js', [tempPath('one-at-a-time-bare', '.db')]);
  const limits = process.env.LIMIT_MINIMAL
    ? [
        { name: 'limit: minimal.mjs MODE=cg (one thread: HTTP, zod, a commit)', server: await startMinimal('cg', LIMIT_CREATE) },
        {
          name: 'limit: minimal.mjs MODE=d (HTTP on a front thread, SQLite on the main thread)',
          server: await startMinimal('d', LIMIT_CREATE),
        },
        {
          name: "limit: limit-rows.mjs MODE=cs (one thread: the sandbox's create rows, a commit)",
          server: await startMinimal('cs', LIMIT_CREATE, undefined, LIMIT_ROWS_SCRIPT),
        },
      ]
    : [];
  const rows = [
    {
      name: 'POST /v1/payments',
      url: sandbox.url,
      request: {
        method: 'POST',
        path: '/v1/payments',
        headers: jsonHeaders(true),
        body: JSON.stringify(v1PaymentFields({ webhookUrl: undefined })),
      },
    },
    { name: 'GET /_sandbox/health', url: sandbox.url, request: { method: 'GET', path: '/_sandbox/health' } },
    {
      name: 'bare Hono POST / (the same body)',
      url: bare.url,
      request: { method: 'POST', path: '/', headers: jsonHeaders(), body: JSON.stringify(v1PaymentFields({ webhookUrl: undefined })) },
    },
    ...limits.map((limit) => ({ name: limit.name, url: limit.server.url, request: LIMIT_CREATE })),
  ];
  try {
    for (const row of rows) for (let i = 0; i < 30; i++) await timed(row.url, row.request);
    const times = rows.map(() => Object.fromEntries(GAPS.map((gap) => [gap, []])));
    for (let round = 0; round < rounds; round++) {
      for (const [i, row] of rows.entries()) {
        for (const gap of GAPS) {
          if (gap > 0) await sleep(gap);
          times[i][gap].push(await timed(row.url, row.request));
        }
      }
    }
    for (const [i, row] of rows.entries()) {
      const [busy, idle] = GAPS.map((gap) => summarise(times[i][gap]));
      const sandboxRow = row.url === sandbox.url;
      report.measure({
        group: 'one at a time',
        name: `${row.name}, one connection: back to back / after a 3 ms gap`,
        figure: `p50 ${busy.p50.toFixed(2)} / ${idle.p50.toFixed(2)} ms, p99 ${busy.p99.toFixed(2)} / ${idle.p99.toFixed(2)} ms (${rounds} each)`,
        ...(sandboxRow ? { target: 'a request after a 3 ms gap: p50 <= 0.6 ms', pass: idle.p50 <= 0.6 } : {}),
      });
    }
  } finally {
    agent.destroy();
    await sandbox.stop();
    await bare.stop();
    for (const limit of limits) await limit.server.stop();
  }
}
