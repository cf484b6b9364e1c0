// The limit folder's minimal servers (LIMIT_MINIMAL names its minimal.mjs): deliberately small
// servers with one SQLite writer, run beside the sandbox as the best its design can reach on the
// same machine at the same time (the peer and one-at-a-time sections).
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { expectOk } from './probe.js';
import { ROOT, freePort, tempPath, track, handle } from './processes.js';
import { jsonHeaders } from './bodies.js';

/** minimal.mjs's create, in its own schema: a card payment of about the sandbox create's size. */
export const LIMIT_CREATE = {
  method: 'POST',
  path: '/v1/payments',
  headers: jsonHeaders(),
  body: JSON.stringify({
    amount: 1050,
    currency: 'EUR',
    description: 'mug',
    metadata: { order: '1' },
    card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' },
  }),
};

/** The sandbox's rows written by limit servers (bench/limit-rows.mjs), beside minimal.mjs's own. */
export const LIMIT_ROWS_SCRIPT = new URL('../limit-rows.mjs', import.meta.url).pathname;

/**
 * Starts minimal.mjs (or `script`, as bench/limit-rows.mjs) in `mode`, `env` added to its
 * environment, run from the project root whose node_modules and dist it uses, and waits until it
 * answers `request`.
 */
export async function startMinimal(mode, request, hook, script = process.env.LIMIT_MINIMAL, env = {}) {
  const port = await freePort();
  const db = tempPath(`minimal-${mode}`, '.db');
  mkdirSync(dirname(db), { recursive: true });
  const childEnv = { ...process.env, ...env, MODE: mode, PORT: String(port), DB: db, ...(hook ? { HOOK: hook } : {}) };
  const child = spawn(process.execPath, [script], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  const tracked = track(child, `${basename(script)} ${mode}`);
  const url = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + 30_000;
  for (;;) {
    try {
      await expectOk(url, `minimal ${mode}`, request);
      return handle(child, tracked, url, performance.now());
    } catch (err) {
      if (child.exitCode !== null || performance.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`${basename(script)} MODE=${mode} did not answer: ${err.message}\n${tracked.output()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
