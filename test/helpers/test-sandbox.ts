// Route-test sandbox: the real app over :memory: SQLite, a fixed clock and a silent logger,
// driven with app.request() (no socket). Also the helpers every test file shares.
import { inject } from 'vitest';
import { loadConfig, type ConfigFlags } from '../../src/config.js';
import { buildSandbox, startServer, type BuildOptions } from '../../src/server/start-server.js';
import { fixedClock } from '../../src/runtime/clock.js';
import { silentLogger } from '../../src/runtime/logger.js';
import { httpClient } from './http.js';

/** The seeded credentials of fixtures/default.json. */
export const CREDS = {
  terNO: 1001,
  publicKey: 'pk_test_1001',
  privateKey: 'pv_test_1001',
  apiKey: 'sk_test_sandbox',
  secret: 'whsec_test_sandbox',
  other: { terNO: 2002, publicKey: 'pk_test_2002', privateKey: 'pv_test_2002', apiKey: 'sk_test_other', secret: 'whsec_test_other' },
} as const;

/** A valid /api/s2s body; override fields per test. */
export function s2sBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    public_key: CREDS.publicKey,
    terNO: CREDS.terNO,
    'integration-type': 's2s',
    bill_amt: '10.50',
    bill_currency: 'EUR',
    product_name: 'Blue mug',
    reference: `ord_${Math.random().toString(36).slice(2, 10)}`,
    webhook_url: 'http://127.0.0.1:9/webhooks',
    return_url: 'http://127.0.0.1:9/return',
    mop: 'CC',
    ccno: '4000000000003220',
    ccvv: '123',
    month: '12',
    year: '30',
    fullname: 'Jane Doe',
    bill_email: 'jane@example.com',
    ...overrides,
  };
}

/** Builds an in-process sandbox for route tests. */
export function createTestSandbox(flags: ConfigFlags = {}) {
  const config = loadConfig({ db: ':memory:', publicUrl: 'http://sandbox.test', retry: 'none', ...flags }, {});
  const clock = fixedClock();
  const built = buildSandbox(config, { clock, logger: silentLogger });

  // request / get / post / postForm against the app, the same helper e2e tests use over a socket.
  const http = httpClient((path, init) => Promise.resolve(built.app.request(path, init)));

  return { ...built, config, clock, ...http, close: () => built.db.close() };
}

/** The test sandbox type. */
export type TestSandbox = ReturnType<typeof createTestSandbox>;

/**
 * The sender thread bundled for this run (test/setup/sender-thread.ts) as start options: a sandbox
 * started from src/ with them sends its webhooks from a thread, as the built package does. Empty
 * where no bundle was provided (another vitest config): the sender then runs on the main thread.
 */
export function senderThread(): Pick<BuildOptions, 'senderEntry'> {
  const href = inject('senderThread');
  return href ? { senderEntry: new URL(href) } : {};
}

/** A real sandbox on 127.0.0.1:<free port> with an in-memory database and no log lines (e2e, CLI, browser). */
export function startTestServer(flags: ConfigFlags = {}) {
  return startServer(loadConfig({ port: 0, db: ':memory:', quiet: true, ...flags }, {}), senderThread());
}
