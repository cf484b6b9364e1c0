// Interleaved A/B of two or more builds of `sandbox start` (their bin/sandbox.js), for a change's
// before and after in one sitting on a shared machine: all run at once, idle but one, and short load
// bursts (autocannon, 10 connections) alternate between them, the order reversed every other round,
// so a drift of the machine's speed falls on each. Prints per build the main-thread and whole-process
// CPU per request and the median of each round's ratio to the first build. With PROFILE_DIR, each
// build also writes a V8 CPU profile there (--cpu-prof, 250 µs samples) for the profile table of
// docs/benchmarks.md. Not part of `npm run bench`:
//   node bench/compare-builds.js <create|charge|challenge> <rounds> <seconds> <before/bin/sandbox.js> <after/bin/sandbox.js>
// (a build before: `git worktree add /tmp/before <commit> && cd /tmp/before && npm ci && npm run build`).
// A build may carry `sandbox start` flags after its path, in the same argument: the journal's cost is
//   node bench/compare-builds.js create 6 2 bin/sandbox.js 'bin/sandbox.js --journal-size 0'
// and node flags before it, added after the ones bin/sandbox.js names (a later V8 flag wins): a heap size is
//   node bench/compare-builds.js create 8 3 bin/sandbox.js '--max-semi-space-size=8 bin/sandbox.js'
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startReceiver } from './lib/receiver.js';
import { CARDS, jsonHeaders, s2sFields, uniqueReference, v1PaymentFields } from './lib/bodies.js';
import { SANDBOX_NODE_FLAGS, cleanupTemp, cpuMsOf, mainThreadCpuMsOf, memoryOf, settle, tempPath } from './lib/processes.js';

const [kind = 'charge', rounds = '6', seconds = '2', ...bins] = process.argv.slice(2);
if (bins.length < 2)
  throw new Error('usage: node bench/compare-builds.js <create|charge|challenge> <rounds> <seconds> <bin A> <bin B> [...]');
const receiver = await startReceiver();

/** Starts one build on a file database of its own and waits for its ready file. */
async function start(target, i) {
  const words = target.split(' ').filter(Boolean);
  const path = words.findIndex((word) => !word.startsWith('--'));
  const nodeFlags = words.slice(0, path);
  const [bin, ...flags] = words.slice(path);
  const db = tempPath(`compare-${i}`, '.db');
  const ready = `${db}.ready`;
  const profile = process.env.PROFILE_DIR ? join(process.env.PROFILE_DIR, String(i)) : undefined;
  if (profile) mkdirSync(profile, { recursive: true });
  const prof = profile ? ['--cpu-prof', '--cpu-prof-interval', '250', '--cpu-prof-dir', profile] : [];
  const child = spawn(
    process.execPath,
    [...SANDBOX_NODE_FLAGS, ...nodeFlags, ...prof, bin, 'start', '--port', '0', '--db', db, '--quiet', '--ready-file', ready, ...flags],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  for (;;) {
    try {
      const url = readFileSync(ready, 'utf8').trim();
      if (url) return { bin: target, child, url, db, n: 0, main: 0, proc: 0, ratios: [] };
    } catch {
      // Not written yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The request of `kind`: a /v1/ create, or an S2S charge (its webhook to the receiver) or challenge. */
function requestOf() {
  if (kind === 'create')
    return {
      method: 'POST',
      path: '/v1/payments',
      headers: jsonHeaders(true),
      body: JSON.stringify(v1PaymentFields({ webhookUrl: undefined })),
    };
  const card = kind === 'charge' ? CARDS.frictionless : CARDS.challenge;
  return {
    method: 'POST',
    path: '/api/s2s',
    headers: jsonHeaders(),
    setupRequest: (req) => ({
      ...req,
      body: JSON.stringify(s2sFields({ card, reference: uniqueReference('ab'), webhookUrl: `${receiver.url}/ab` })),
    }),
  };
}

const run = (target, duration) =>
  new Promise((resolve, reject) =>
    autocannon({ url: target.url, connections: 10, requests: [requestOf()], duration }, (err, result) =>
      err ? reject(err) : resolve(result),
    ),
  );
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const targets = [];
for (const [i, bin] of bins.entries()) targets.push(await start(bin, i));
for (const target of targets) await run(target, 1);
let owed = 0;
for (let round = 0; round < Number(rounds); round++) {
  const per = [];
  for (const target of round % 2 ? [...targets].reverse() : targets) {
    await settle(target.child.pid, 5000);
    const [cpu0, main0] = [cpuMsOf(target.child.pid), mainThreadCpuMsOf(target.child.pid)];
    const result = await run(target, Number(seconds));
    if (kind === 'charge') {
      // The CPU of a charge includes sending its webhook: wait for them before reading it.
      owed += result.requests.total;
      const until = performance.now() + 20_000;
      while (receiver.count < owed && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [cpu1, main1] = [cpuMsOf(target.child.pid), mainThreadCpuMsOf(target.child.pid)];
    target.n += result.requests.total;
    target.main += main1 - main0;
    target.proc += cpu1 - cpu0;
    per.push({ target, main: (main1 - main0) / result.requests.total, proc: (cpu1 - cpu0) / result.requests.total });
  }
  const first = per.find((p) => p.target === targets[0]);
  for (const p of per) p.target.ratios.push([p.main / first.main, p.proc / first.proc]);
}
for (const t of targets)
  console.log(
    `${t.bin}: ${t.n} requests; main thread ${Math.round((t.main * 1000) / t.n)} µs/req, whole process ${Math.round((t.proc * 1000) / t.n)} µs/req;`,
    `median ratio to the first: main ${median(t.ratios.map((r) => r[0])).toFixed(2)}, process ${median(t.ratios.map((r) => r[1])).toFixed(2)};`,
    `peak RSS ${memoryOf(t.child.pid).peakMb.toFixed(0)} MB`,
  );
if (kind === 'charge') console.log(`webhooks ${receiver.count}, owed at least ${owed}`);
for (const t of targets) {
  t.child.kill('SIGTERM');
  await new Promise((resolve) => t.child.once('exit', resolve));
  for (const file of [t.db, `${t.db}-wal`, `${t.db}-shm`]) rmSync(file, { force: true });
}
await receiver.close();
cleanupTemp();
