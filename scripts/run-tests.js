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
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makePackedTemplate } from './packed-template.js';
import { privateNetwork } from './private-network.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const ARTIFACTS = join(ROOT, 'test-artifacts');

/** The projects of vitest.config.ts, fastest first. */
export const PROJECTS = ['unit', 'routes', 'isolated', 'fuzz', 'e2e', 'cli', 'browser', 'docs', 'examples'];
/** The projects with tests that copy the packed install (test/docs/packed-install.ts). */
const PACKED = ['docs', 'cli'];
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

/** How many of a run's last lines are kept, to be shown again at the end when it fails without a failed test to name. */
const TAIL_LINES = 25;

/** Copies a stream to `out` line by line, each line after `prefix`, keeping the last ones in `tail`. */
function prefixed(stream, out, prefix, tail) {
  createInterface({ input: stream }).on('line', (line) => {
    out.write(`${prefix}${line}\n`);
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
  });
}

/**
 * What a failed run's report says failed: each failed test (or file, when a hook or an import
 * failed) with the first lines of its error. A CI log is often read from its end only, where the
 * runs beside the first one have long scrolled by; these lines come last.
 */
function failuresOf(name) {
  const file = join(ARTIFACTS, `vitest-${name}.json`);
  if (!existsSync(file)) return [];
  const report = JSON.parse(readFileSync(file, 'utf8'));
  // The message, and the first frame outside node_modules: where it failed.
  const first = (text) => {
    const lines = text
      .replace(/\x1b\[[0-9;]*m/g, '')
      .split('\n')
      .filter((l) => l.trim());
    const message = lines.filter((l) => !/^\s*at /.test(l)).slice(0, 5);
    const frame = lines.find((l) => /^\s*at /.test(l) && !l.includes('node_modules'));
    return [...message, ...(frame ? [frame.trim()] : [])].map((l) => `      ${l.slice(0, 300)}`);
  };
  const lines = [];
  for (const result of report.testResults ?? []) {
    const where = result.name.startsWith(ROOT) ? result.name.slice(ROOT.length) : result.name;
    const failed = (result.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const test of failed) lines.push(`    ${where} > ${test.fullName}`, ...first(test.failureMessages.join('\n')));
    if (!failed.length && result.status === 'failed') lines.push(`    ${where}`, ...first(result.message || 'failed'));
  }
  return lines;
}

/** Runs one run to its end; resolves with its exit code and wall time. With `beside`, its lines are prefixed with its name. */
function run({ name, projects }, beside = false) {
  const { command, args, isolated } = runOf(name, projects);
  const started = Date.now();
  const network =
    isolated === undefined ? '' : isolated ? ' (in a network namespace of its own)' : " (on the host's network: unshare -n failed here)";
  console.log(
    `\n=== ${name}${projects.length > 1 ? ` (${projects.join(', ')})` : ''}${network}${beside ? ` (lines start with [${name}])` : ''} ===`,
  );
  const tail = [];
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: beside ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (beside) {
      prefixed(child.stdout, process.stdout, `[${name}] `, tail);
      prefixed(child.stderr, process.stderr, `[${name}] `, tail);
    }
    child.on('close', (code) => resolve({ name, code: code ?? 1, seconds: Math.round((Date.now() - started) / 1000), tail }));
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

  // One folder for the runs' one packed install of the package (test/setup/packed-template.ts); a
  // run in the docs' network namespace sees the same files. Made here, before the runs start, when
  // a run needs it (scripts/packed-template.js says why); a failure is the tests' to report.
  const packed = mkdtempSync(join(tmpdir(), 'paysandbox-packed-'));
  process.env.PAYSANDBOX_PACKED_TEMPLATE = packed;
  if (runs.some(({ projects }) => projects.some((p) => PACKED.includes(p)))) {
    const started = Date.now();
    try {
      makePackedTemplate(packed);
      console.log(`packed and installed the package for the runs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } catch (err) {
      console.error(`packing and installing the package failed: ${err.message}`);
    }
  }
  const results = [];
  if (wanted.length) for (const r of runs) results.push(await run(r));
  else results.push(...(await Promise.all(runs.map((r, i) => run(r, i > 0)))));
  rmSync(packed, { recursive: true, force: true });
  for (const r of results.filter((r) => r.code !== 0)) {
    const failures = failuresOf(r.name);
    console.log(`\n${r.name} failed:`);
    // No failed test in its report (an unhandled error, a crash, no report): its last lines say why.
    if (failures.length) console.log(failures.join('\n'));
    else console.log(r.tail.map((line) => `    ${line}`).join('\n') || '    (see its lines above)');
  }
  console.log('\nruns:');
  for (const r of results)
    console.log(`  ${r.name.padEnd(9)} ${String(r.seconds).padStart(4)} s  ${r.code === 0 ? 'passed' : `failed (exit ${r.code})`}`);
  process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
}
