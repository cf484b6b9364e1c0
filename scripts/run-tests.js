// `npm test`: the vitest projects of vitest.config.ts in order, fastest first, each in its own run
// with its own JSON report (test-artifacts/vitest-<project>.json), then the worked example's run
// (test/example-merchant, test-artifacts/vitest-example.json). The docs project runs in a network
// namespace of its own when one can be made (scripts/private-network.js). Every run goes ahead
// even when an earlier one failed, so one CI log shows every failure; the exit code is 1 if any
// failed. The last lines give each run's wall time.
//   node scripts/run-tests.js            every project
//   node scripts/run-tests.js unit e2e   those projects only
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { privateNetwork } from './private-network.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');

/** The projects of vitest.config.ts, in the order they run. */
export const PROJECTS = ['unit', 'fuzz', 'e2e', 'cli', 'browser', 'docs', 'examples'];
/** The worked example's run: its own vitest config (it imports the built package by name). */
const EXAMPLE = 'example';

/** The command of one run: a project of the main config, or the example's config. */
function runOf(name) {
  if (name === EXAMPLE) return { command: process.execPath, args: [VITEST, 'run', '--config', 'test/example-merchant/vitest.config.ts'] };
  const args = [VITEST, 'run', '--project', name, `--outputFile.json=test-artifacts/vitest-${name}.json`];
  return name === 'docs' ? privateNetwork(process.execPath, args) : { command: process.execPath, args };
}

/** Runs `name` to its end; resolves with its exit code and wall time. */
function run(name) {
  const { command, args } = runOf(name);
  const started = Date.now();
  console.log(`\n=== ${name} ===`);
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit' });
    child.on('exit', (code) => resolve({ name, code: code ?? 1, seconds: Math.round((Date.now() - started) / 1000) }));
  });
}

/** The runs of a whole `npm test`, in order: each writes test-artifacts/vitest-<name>.json. */
export const RUNS = [...PROJECTS, EXAMPLE];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !PROJECTS.includes(name) && name !== EXAMPLE);
  if (unknown.length) {
    console.error(`unknown project ${unknown.join(', ')}: the projects are ${PROJECTS.join(', ')} and ${EXAMPLE}`);
    process.exit(2);
  }
  const names = wanted.length ? wanted : RUNS;
  // A report left from an earlier run must not count in this one's summary.
  for (const name of names) rmSync(join(ROOT, `test-artifacts/vitest-${name}.json`), { force: true });

  const results = [];
  for (const name of names) results.push(await run(name));
  console.log('\nruns:');
  for (const r of results)
    console.log(`  ${r.name.padEnd(9)} ${String(r.seconds).padStart(4)} s  ${r.code === 0 ? 'passed' : `failed (exit ${r.code})`}`);
  process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
}
