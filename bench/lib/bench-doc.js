// Writes docs/benchmarks.md: the machine, how each figure is measured, and the run's tables.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './processes.js';

function command(file, args) {
  try {
    return execFileSync(file, args, { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

const loadAtStart = loadavg()[0];

/** What the figures were measured on. */
export function machine() {
  return {
    load: loadAtStart.toFixed(1),
    nproc: command('nproc', []),
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGb: (totalmem() / 1024 ** 3).toFixed(0),
    node: process.version,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    commit: command('git', ['rev-parse', '--short', 'HEAD']),
    version: JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version,
  };
}

const METHOD = readFileSync(new URL('../method.md', import.meta.url), 'utf8');

/** Writes the document and returns its path. */
export function writeBenchDoc(report, { seconds }) {
  const m = machine();
  const text = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (the full run; about 4 minutes). `npm run bench -- --quick` runs every',
    'measurement for about a second with smaller tables and only prints: CI runs it after the tests to keep',
    'the script working. Missed targets are printed and never fail a run; a crash, an endpoint that does',
    'not answer 2xx, or an acknowledged payment missing after kill -9 exits non-zero.',
    '',
    `Last full run: ${m.date}, paysandbox ${m.version} at commit ${m.commit}, ${seconds.toFixed(0)} s.`,
    `Machine: \`nproc\` = ${m.nproc} (${m.cpu}), ${m.memoryGb} GB RAM, Node ${m.node}; load average when the run started: ${m.load}.`,
    'The machine is shared: other work running at the same time lowers the figures, so compare',
    'ratios (measured in the same run) rather than absolute requests per second.',
    '',
    report.markdown(),
    '',
    METHOD.trim(),
    '',
  ].join('\n');
  const path = join(ROOT, 'docs/benchmarks.md');
  writeFileSync(path, text);
  return path;
}
