// --front-thread on real `sandbox start` processes: on parses HTTP on a thread of its own, off on
// the main thread with SQLite, and both answer the same; auto follows the machine's cores
// (test/unit/front-thread-setting.test.ts). The thread is counted in /proc (Linux).
import { existsSync, readdirSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { type CliSandbox, startCliSandbox } from '../helpers/cli-sandbox.js';
import { AUTH, paymentBody } from '../helpers/payments-api.js';
import { waitFor } from '../helpers/wait-for.js';

const running: CliSandbox[] = [];
afterEach(async () => {
  for (const sandbox of running.splice(0)) await sandbox.stop();
});

const threadsOf = (sandbox: CliSandbox) => readdirSync(`/proc/${sandbox.child.pid}/task`).length;

it.runIf(existsSync('/proc/self/task'))(
  '--front-thread on runs one thread more than off, and a create answers the same through either',
  async () => {
    const on = await startCliSandbox(['--db', ':memory:', '--quiet', '--front-thread', 'on']);
    running.push(on);
    const off = await startCliSandbox(['--db', ':memory:', '--quiet', '--front-thread', 'off']);
    running.push(off);
    for (const sandbox of [on, off]) {
      const res = await fetch(`${sandbox.url}/v1/payments`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify(paymentBody()),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { object: string }).object).toBe('payment');
    }
    // Both have done the same work since, so their other threads (sender, V8's, libuv's) match.
    await waitFor(() => threadsOf(on) === threadsOf(off) + 1 || undefined, 'one thread more with --front-thread on', 10_000);
  },
);
