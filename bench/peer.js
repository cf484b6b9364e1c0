// The peer merchants compare with: stripe-mock (Go, stateless, sends no webhook), measured beside
// the sandbox in one run when STRIPE_MOCK names its binary (STRIPE_MOCK_SPEC and
// STRIPE_MOCK_FIXTURES for its -spec and -fixtures). Rounds alternate between the peer's create
// and the sandbox's two rows, so a drift of this shared machine's speed falls on all of them:
// - create vs create: POST /v1/payments against its confirmed PaymentIntent;
// - a one-step charge with its signed webhook delivered (POST /api/s2s, card 4242) against the
//   same peer create, which stores nothing and sends nothing.
// Each row also gives the server's CPU per request: its main thread and the whole process.
// With LIMIT_MINIMAL naming the limit folder's minimal.mjs (minimal servers with one SQLite writer),
// two of them join the rounds, as the best this design can reach on the same machine at the same
// time: MODE=cg (zod, 3 inserts, one commit per turn) and MODE=e2 (the same plus an outbox row and
// its signed webhook sent from a sender thread). Then bench/limit-rows.mjs's servers join them: the
// same designs writing the sandbox's own rows into its own schema (a create's payment, two events
// and journal row; a charge's transaction, event, delivery, journal row and attempt record), on one
// thread (cs, e2s) or with HTTP on a front thread (ds, d2s): the most this machine gives the
// sandbox's data, whatever the code around it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { measure } from './lib/load.js';
import { expectOk } from './lib/probe.js';
import { freePort, settle, startSandbox, tempPath, track, handle } from './lib/processes.js';
import { LIMIT_CREATE, LIMIT_ROWS_SCRIPT, startMinimal } from './lib/limit.js';
import { startReceiver } from './lib/receiver.js';
import { CARDS, jsonHeaders, s2sFields, uniqueReference, v1PaymentFields } from './lib/bodies.js';

/** Alternating rounds per row: three, as the keyed-create ratio uses. */
const ROUNDS = 3;

/** The peer's create: a PaymentIntent for card 4242, confirmed and captured at once. */
export const PEER_CREATE = {
  method: 'POST',
  path: '/v1/payment_intents',
  headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer sk_test_123' },
  body: 'amount=1050&currency=eur&payment_method_types[]=card&confirm=true&payment_method=pm_card_visa',
};

/** The limit servers that join the rounds with LIMIT_MINIMAL: their file, whether they send webhooks, what they do. */
const LIMITS = {
  cg: { file: 'minimal.mjs', hook: false, what: 'zod, 3 inserts, one commit per event-loop turn' },
  e2: { file: 'minimal.mjs', hook: true, what: 'the same plus an outbox row and its signed webhook, sent from a sender thread' },
  cs: {
    file: 'limit-rows.mjs',
    hook: false,
    what: "one thread: a create's rows in the sandbox's schema (payment, two events, masked journal row)",
  },
  ds: { file: 'limit-rows.mjs', hook: false, what: 'the same rows, HTTP and zod on a front thread, the main thread only inserts' },
  e2s: {
    file: 'limit-rows.mjs',
    hook: true,
    what: "one thread: a charge's rows (transaction, event, delivery, journal row), its webhook from a sender thread, the attempt recorded",
  },
  d2s: { file: 'limit-rows.mjs', hook: true, what: 'the same with HTTP on a front thread: front, writer and sender' },
};

/** Starts stripe-mock on free ports (it always opens an HTTPS listener too) and waits until it answers. */
export async function startStripeMock() {
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const args = ['-http-addr', `127.0.0.1:${httpPort}`, '-https-addr', `127.0.0.1:${httpsPort}`];
  if (process.env.STRIPE_MOCK_SPEC) args.push('-spec', process.env.STRIPE_MOCK_SPEC);
  if (process.env.STRIPE_MOCK_FIXTURES) args.push('-fixtures', process.env.STRIPE_MOCK_FIXTURES);
  // It logs several lines per request: sent nowhere, as the sandbox runs with --quiet.
  const child = spawn(process.env.STRIPE_MOCK, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const tracked = track(child, 'stripe-mock');
  const url = `http://127.0.0.1:${httpPort}`;
  const deadline = performance.now() + 30_000;
  for (;;) {
    try {
      await expectOk(url, 'stripe-mock', PEER_CREATE);
      return handle(child, tracked, url, performance.now());
    } catch (err) {
      if (child.exitCode !== null || performance.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`stripe-mock did not answer: ${err.message}\n${tracked.output()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Sums the rounds of one row: req/s over the whole time, CPU per request over every request. */
function add(total, result) {
  const t = total ?? { ok: 0, total: 0, seconds: 0, cpuMs: 0, mainCpuMs: 0, p99: 0, non2xx: 0, errors: 0, statuses: {} };
  t.ok += result.ok;
  t.total += result.total;
  t.seconds += result.seconds;
  t.cpuMs += (result.cpuUsPerRequest * result.total) / 1000;
  t.mainCpuMs += (result.mainCpuUsPerRequest * result.total) / 1000;
  t.p99 = Math.max(t.p99, result.p99);
  t.non2xx += result.non2xx;
  t.errors += result.errors;
  for (const [status, n] of Object.entries(result.statuses)) t.statuses[status] = (t.statuses[status] ?? 0) + n;
  return t;
}

const perRequest = (t, ms) => `${Math.round((ms * 1000) / t.total)} µs`;

/** Runs the peer section when STRIPE_MOCK is set; says how to enable it otherwise. */
export async function benchPeer(ctx) {
  const { report, timing, receiver } = ctx;
  if (!process.env.STRIPE_MOCK) {
    report.measure({
      group: 'peer',
      name: 'stripe-mock rows',
      figure: 'not run: set STRIPE_MOCK to a stripe-mock binary (and STRIPE_MOCK_SPEC, STRIPE_MOCK_FIXTURES) to compare with it',
    });
    return;
  }
  if (!existsSync(process.env.STRIPE_MOCK)) throw new Error(`STRIPE_MOCK names ${process.env.STRIPE_MOCK}, which does not exist`);
  const peer = await startStripeMock();
  const sandbox = await startSandbox({ db: tempPath('peer', '.db') });
  const webhookUrl = `${receiver.url}/peer`;
  const limitReceiver = process.env.LIMIT_MINIMAL ? await startReceiver() : undefined;
  const limits = {};
  if (limitReceiver)
    for (const [mode, limit] of Object.entries(LIMITS))
      limits[mode] = await startMinimal(
        mode,
        LIMIT_CREATE,
        limit.hook ? `${limitReceiver.url}/limit` : undefined,
        limit.file === 'limit-rows.mjs' ? LIMIT_ROWS_SCRIPT : undefined,
      );
  const rows = {
    peer: { url: peer.url, pid: peer.pid, request: PEER_CREATE },
    create: {
      url: sandbox.url,
      pid: sandbox.pid,
      request: {
        method: 'POST',
        path: '/v1/payments',
        headers: jsonHeaders(true),
        body: JSON.stringify(v1PaymentFields({ webhookUrl: undefined })),
      },
    },
    ...Object.fromEntries(
      Object.entries(limits).map(([mode, server]) => [`limit ${mode}`, { url: server.url, pid: server.pid, request: LIMIT_CREATE }]),
    ),
    charge: {
      url: sandbox.url,
      pid: sandbox.pid,
      request: {
        method: 'POST',
        path: '/api/s2s',
        headers: jsonHeaders(),
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify(s2sFields({ card: CARDS.frictionless, reference: uniqueReference('peer'), webhookUrl })),
        }),
      },
    },
  };
  try {
    for (const row of Object.values(rows))
      await expectOk(row.url, 'peer row probe', row.request.setupRequest?.({ ...row.request }) ?? row.request);
    receiver.reset();
    const slice = { ...timing, warmupSeconds: timing.warmupSeconds / 2 };
    const totals = {};
    let chargesAcknowledged = 1; // the probe above
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [name, row] of Object.entries(rows)) {
        await settle(sandbox.pid, undefined, ctx.settleWindowMs);
        const result = await measure(row.url, row.request, slice, row.pid);
        if (name === 'charge') chargesAcknowledged += result.ok + result.warmupOk;
        totals[name] = add(totals[name], result);
      }
    }
    // Every acknowledged charge owes its webhook: the row counts only if they all arrive.
    const loadEnded = performance.now();
    let delivered = true;
    try {
      await receiver.waitForCount(chargesAcknowledged, 60_000);
    } catch {
      delivered = false;
    }
    const rps = (t) => t.ok / t.seconds;
    const ratio = (name) => rps(totals[name]) / rps(totals.peer);
    const cpu = (t) => `server CPU per request ${perRequest(t, t.cpuMs)} (main thread ${perRequest(t, t.mainCpuMs)})`;
    report.measure({
      group: 'peer',
      name: `stripe-mock POST /v1/payment_intents (confirm), ${ROUNDS} rounds alternating with the rows below`,
      figure: `${Math.round(rps(totals.peer))} req/s, p99 ${totals.peer.p99.toFixed(2)} ms; ${cpu(totals.peer)}`,
    });
    report.measure({
      group: 'peer',
      name: 'POST /v1/payments / stripe-mock create',
      figure: `${ratio('create').toFixed(2)} (${Math.round(rps(totals.create))} req/s, p99 ${totals.create.p99.toFixed(2)} ms; ${cpu(totals.create)})`,
      target: '>= 1.2 of stripe-mock create',
      pass: ratio('create') >= 1.2,
    });
    report.measure({
      group: 'peer',
      name: 'POST /api/s2s 4242 with its webhook delivered / stripe-mock create',
      figure: `${ratio('charge').toFixed(2)} (${Math.round(rps(totals.charge))} req/s, p99 ${totals.charge.p99.toFixed(2)} ms; ${cpu(totals.charge)}); ${receiver.count} webhooks for ${chargesAcknowledged} acknowledged charges${delivered ? `, the last ${Math.round(performance.now() - loadEnded)} ms after the load` : ', NOT all delivered within 60 s'}`,
      target: '>= 1.0 of stripe-mock create, every owed webhook delivered',
      pass: ratio('charge') >= 1 && delivered,
    });
    if (!delivered) report.problem(`peer: ${receiver.count} of ${chargesAcknowledged} owed webhooks arrived`);
    // What one SQLite writer thread can carry sets the ceiling: the main thread's CPU per request (issue 34).
    const us = (t, ms) => (ms * 1000) / t.total;
    report.measure({
      group: 'peer',
      name: 'main-thread CPU per POST /v1/payments (the rounds above)',
      figure: perRequest(totals.create, totals.create.mainCpuMs),
      target: 'main-thread CPU per create <= 150 µs',
      pass: us(totals.create, totals.create.mainCpuMs) <= 150,
    });
    report.measure({
      group: 'peer',
      name: 'main-thread CPU per POST /api/s2s 4242 with its webhook (the rounds above)',
      figure: perRequest(totals.charge, totals.charge.mainCpuMs),
      target: 'main-thread CPU per charge <= 190 µs',
      pass: us(totals.charge, totals.charge.mainCpuMs) <= 190,
    });
    report.measure({
      group: 'peer',
      name: 'whole-process CPU per POST /api/s2s 4242 with its webhook (the rounds above)',
      figure: perRequest(totals.charge, totals.charge.cpuMs),
      target: 'process CPU per charge <= 300 µs',
      pass: us(totals.charge, totals.charge.cpuMs) <= 300,
    });
    for (const mode of Object.keys(limits))
      report.measure({
        group: 'peer',
        name: `limit: ${LIMITS[mode].file} MODE=${mode} (${LIMITS[mode].what}) / stripe-mock create`,
        figure: `${ratio(`limit ${mode}`).toFixed(2)} (${Math.round(rps(totals[`limit ${mode}`]))} req/s; ${cpu(totals[`limit ${mode}`])})`,
      });
  } finally {
    await sandbox.stop();
    await peer.stop();
    for (const server of Object.values(limits)) await server.stop();
    await limitReceiver?.close();
  }
}
