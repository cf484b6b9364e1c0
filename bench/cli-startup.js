// CLI start-up: the CPU time of a whole `sandbox` process that exits at once (`--version`, a
// command's `--help`) and of a client command against a running sandbox (`webhooks list --json`),
// each as a ratio to `node -e 0` measured in the same rounds. Scripts and test suites run these
// commands hundreds of times (the docs test alone about 220), so every millisecond is paid there.
// CPU (user + system, every thread) rather than wall time: on a shared machine wall time measures
// the neighbours. A child's CPU is read from this process's /proc/self/stat (cutime + cstime, the
// reaped children's total) around each spawnSync; one reading is in 10 ms ticks, the mean of the
// rounds is finer.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startSandbox, tempPath } from './lib/processes.js';

const BIN = join(ROOT, 'bin/sandbox.js');
/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

/** CPU ms of every reaped child so far. */
function childrenCpuMs() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  // After "pid (comm) ", field 3 (state) is index 0, so cutime (16) and cstime (17) are 13 and 14.
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
}

/** Runs `args` with node once and answers its CPU ms; a non-zero exit is a problem of the run. */
function cpuOf(args) {
  const before = childrenCpuMs();
  const child = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`node ${args.join(' ')} exited ${child.status}: ${child.stderr.slice(0, 500)}`);
  return childrenCpuMs() - before;
}

/** Runs the CLI start-up rows (part of the start-up section). */
export async function benchCliStartup(ctx) {
  const { report, quick } = ctx;
  const rounds = quick ? 5 : 20;
  const sandbox = await startSandbox({ db: tempPath('cli-startup', '.db') });
  // [name, node's arguments, the ratio to node -e 0 held as a target, the CPU goal in ms on a quiet machine]
  const commands = [
    ['sandbox --version', [BIN, '--version'], 2, 100],
    ['sandbox webhooks list --help', [BIN, 'webhooks', 'list', '--help'], 2, 100],
    ['sandbox webhooks list --json (a running sandbox)', [BIN, 'webhooks', 'list', '--json', '--url', sandbox.url], 2.5, 150],
  ];
  let node = 0;
  const totals = commands.map(() => 0);
  try {
    // In turn, so each command meets the same load as the baseline of its round.
    for (let round = 0; round < rounds; round++) {
      node += cpuOf(['-e', '0']);
      for (const [i, [, args]] of commands.entries()) totals[i] += cpuOf(args);
    }
  } finally {
    await sandbox.stop();
  }
  node /= rounds;
  commands.forEach(([name, , ratioLimit, msGoal], i) => {
    const cpu = totals[i] / rounds;
    const ratio = cpu / node;
    report.measure({
      group: 'start-up',
      name: `CLI: ${name}, CPU of the process`,
      figure: `${ratio.toFixed(2)}x node -e 0 (${cpu.toFixed(0)} ms against ${node.toFixed(0)} ms, mean of ${rounds} rounds; goal on a quiet machine ${msGoal} ms)`,
      target: `<= ${ratioLimit}x the CPU of node -e 0`,
      pass: ratio <= ratioLimit,
    });
  });
}
