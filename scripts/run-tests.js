// `npm test`: every vitest project of vitest.config.ts, then the worked example's run
// (test/example-merchant). A whole `npm test` makes three runs side by side: the projects that
// share the host's network in ONE vitest run (`together`: vitest keeps several files of every
// project going at once), the docs project in a network namespace of its own when one can be made
// (scripts/private-network.js), and the example. Most of the suite waits on sockets, processes and
// Chromium, so the runs overlap their waits instead of queueing them. Lines of a run that shares
// the terminal are prefixed with its name. `node scripts/run-tests.js unit e2e` runs those projects
// one run each, in turn. Every run goes to its end even when another failed, so one CI log shows
// every failure; the exit code is 1 if any failed. Each run writes test-artifacts/vitest-<run>.json,
// the runs it made are listed in test-artifacts/runs.json (scripts/test-summary.js totals them),
// and the last lines give each run's wall time.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { privateNetwork } from './private-network.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const ARTIFACTS = join(ROOT, 'test-artifacts');

/** The projects of vitest.config.ts, fastest first. */
export const PROJECTS = ['unit', 'routes', 'isolated', 'fuzz', 'e2e', 'cli', 'browser', 'docs', 'examples'];
/** The worked example's run: its own vitest config (it imports the built package by name). */
const EXAMPLE = 'example';
/** The projects of a whole `npm test` that run together on the host's network. */
const TOGETHER = PROJECTS.filter((name) => name !== 'docs');

/** The command of one run: some projects of the main config, or the example's config. */
function runOf(name, projects) {
  if (name === EXAMPLE) return { command: process.execPath, args: [VITEST, 'run', '--config', 'test/example-merchant/vitest.config.ts'] };
  const args = [VITEST, 'run', ...projects.flatMap((p) => ['--project', p]), `--outputFile.json=test-artifacts/vitest-${name}.json`];
  return projects.includes('docs') ? privateNetwork(process.execPath, args) : { command: process.execPath, args };
}

/** Copies a stream to `out` line by line, each line after `prefix`. */
function prefixed(stream, out, prefix) {
  createInterface({ input: stream }).on('line', (line) => out.write(`${prefix}${line}\n`));
}

/** Runs one run to its end; resolves with its exit code and wall time. With `beside`, its lines are prefixed with its name. */
function run({ name, projects }, beside = false) {
  const { command, args } = runOf(name, projects);
  const started = Date.now();
  console.log(`\n=== ${name}${projects.length > 1 ? ` (${projects.join(', ')})` : ''}${beside ? ` (lines start with [${name}])` : ''} ===`);
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: beside ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (beside) {
      prefixed(child.stdout, process.stdout, `[${name}] `);
      prefixed(child.stderr, process.stderr, `[${name}] `);
    }
    child.on('close', (code) => resolve({ name, code: code ?? 1, seconds: Math.round((Date.now() - started) / 1000) }));
  });
}

/** The runs of a whole `npm test`, all at once: the first on the terminal, the others beside it. */
const WHOLE = [
  { name: 'together', projects: TOGETHER },
  { name: 'docs', projects: ['docs'] },
  { name: EXAMPLE, projects: [] },
];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !PROJECTS.includes(name) && name !== EXAMPLE);
  if (unknown.length) {
    console.error(`unknown project ${unknown.join(', ')}: the projects are ${PROJECTS.join(', ')} and ${EXAMPLE}`);
    process.exit(2);
  }
  const runs = wanted.length ? wanted.map((name) => ({ name, projects: name === EXAMPLE ? [] : [name] })) : WHOLE;
  // A report left from an earlier run must not count in this one's summary.
  mkdirSync(ARTIFACTS, { recursive: true });
  for (const { name } of runs) rmSync(join(ARTIFACTS, `vitest-${name}.json`), { force: true });
  writeFileSync(join(ARTIFACTS, 'runs.json'), JSON.stringify(runs.map(({ name }) => `test-artifacts/vitest-${name}.json`)));

  // One folder for the runs' one packed install of the package (test/setup/packed-template.ts): the
  // first test of any run that needs it makes it; a run in the docs' network namespace sees the same files.
  const packed = mkdtempSync(join(tmpdir(), 'paysandbox-packed-'));
  process.env.PAYSANDBOX_PACKED_TEMPLATE = packed;
  const results = [];
  if (wanted.length) for (const r of runs) results.push(await run(r));
  else results.push(...(await Promise.all(runs.map((r, i) => run(r, i > 0)))));
  rmSync(packed, { recursive: true, force: true });
  console.log('\nruns:');
  for (const r of results)
    console.log(`  ${r.name.padEnd(9)} ${String(r.seconds).padStart(4)} s  ${r.code === 0 ? 'passed' : `failed (exit ${r.code})`}`);
  process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
}
