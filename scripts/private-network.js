// Runs a command in a network namespace of its own (`unshare -n`, its loopback brought up) when
// this machine can make one: as root on Linux, as CI runs. The docs tests bind the fixed ports the
// pages print (4010, 3000); in their own namespace they cannot collide with a sandbox, a dev
// server or another checkout's test run on the host. Elsewhere (no unshare, not root, macOS) the
// command runs on the host's network, and a line on stderr says so.
//   node scripts/private-network.js npx vitest run --project docs
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Whether `unshare -n` works here and `ip` can bring the new namespace's loopback up. */
export function canUnshareNetwork() {
  return spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore' }).status === 0;
}

/**
 * The command and arguments that run `command args` in a private network namespace when one can
 * be made, else as they are.
 * @param {string} command
 * @param {string[]} args
 * @returns {{ command: string, args: string[], isolated: boolean }}
 */
export function privateNetwork(command, args) {
  if (!canUnshareNetwork()) return { command, args, isolated: false };
  return { command: 'unshare', args: ['-n', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', command, ...args], isolated: true };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    console.error('usage: node scripts/private-network.js <command> [args...]');
    process.exit(2);
  }
  const run = privateNetwork(command, args);
  if (!run.isolated) console.error('private-network: unshare -n is not available here; running on the host network');
  const child = spawn(run.command, run.args, { stdio: 'inherit' });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
