// The warm-up startSandbox() runs before it resolves (src/http/warm-up.ts): it may compile the
// request path, but a suite must not be able to tell it ran: no log line, no row, and standing API
// fault rules with a seed fire on the same requests as without it.
import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildSandbox } from '../../src/server/start-server.js';
import { fixedClock } from '../../src/runtime/clock.js';
import type { Logger } from '../../src/runtime/logger.js';
import { warmUp } from '../../src/http/warm-up.js';
import { AUTH, paymentBody } from '../helpers/payments-api.js';
import { CREDS, s2sBody } from '../helpers/test-sandbox.js';

const closers: Array<() => void> = [];
afterEach(() => {
  while (closers.length) closers.pop()!();
});

/** A sandbox whose log lines are kept, with a rule that fails half of all creates (seeded). */
function sandbox() {
  const lines: string[] = [];
  const logger: Logger = {
    request: (entry) => lines.push(`${entry.method} ${entry.path} ${entry.status}`),
    webhook: () => lines.push('webhook'),
    info: (message) => lines.push(message),
    error: (message) => lines.push(message),
  };
  const config = loadConfig({ db: ':memory:', retry: 'none', faults: 'route=POST:status=503,p=0.5', faultSeed: 11 }, {});
  const built = buildSandbox(config, { clock: fixedClock(), logger });
  closers.push(() => built.db.close());
  const tables = () =>
    (built.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]).map(
      (name) => `${name} ${built.db.prepare(`SELECT COUNT(*) FROM "${name}"`).pluck().get()}`,
    );
  return { ...built, lines, tables };
}

/** The statuses of ten creates of each API, in turn. */
async function statuses(app: ReturnType<typeof sandbox>['app']): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < 10; i++) {
    const v1 = await app.request('/v1/payments', {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify(paymentBody()),
    });
    const s2s = await app.request('/api/s2s', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(s2sBody({ public_key: CREDS.publicKey, reference: `warm-${i}` })),
    });
    seen.push(v1.status, s2s.status);
  }
  return seen;
}

it('logs nothing and writes nothing', async () => {
  const sb = sandbox();
  const before = sb.tables();
  await warmUp(sb.app);
  expect(sb.lines).toEqual([]);
  expect(sb.tables()).toEqual(before);
});

it('leaves seeded API fault rules firing on the same requests as without it', async () => {
  const cold = sandbox();
  const warm = sandbox();
  await warmUp(warm.app);
  const expected = await statuses(cold.app);
  expect(expected).toContain(503);
  expect(expected).toContain(200);
  expect(await statuses(warm.app)).toEqual(expected);
  // The real requests are logged as ever.
  expect(warm.lines).toHaveLength(20);
});
