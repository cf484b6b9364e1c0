// The one fixture for "a real sandbox and a fake merchant": both on 127.0.0.1, started before
// the tests and closed after them, with an HTTP client for the sandbox.
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { ConfigFlags } from '../../src/config.js';
import type { RunningServer } from '../../src/server/start-server.js';
import { startFakeMerchant, type FakeMerchant } from './fake-merchant.js';
import { api, type HttpClient } from './http.js';
import { startTestServer } from './test-sandbox.js';

/** A started sandbox, the merchant receiving its webhooks, and a client for the sandbox. */
export interface SandboxWithMerchant {
  sandbox: RunningServer;
  merchant: FakeMerchant;
  http: HttpClient;
  close: () => Promise<void>;
}

/** What to start: the sandbox's flags and the merchant's scripted answers. */
export interface SandboxWithMerchantOptions {
  flags?: ConfigFlags;
  merchant?: Parameters<typeof startFakeMerchant>[0];
}

/** Starts a fake merchant, then a sandbox; `close()` stops both. */
export async function startSandboxWithMerchant(options: SandboxWithMerchantOptions = {}): Promise<SandboxWithMerchant> {
  const merchant = await startFakeMerchant(options.merchant);
  const sandbox = await startTestServer(options.flags);
  return {
    sandbox,
    merchant,
    http: api(sandbox.url),
    close: async () => {
      await sandbox.close();
      await merchant.close();
    },
  };
}

/**
 * Registers hooks that start a sandbox and a merchant before the tests of the enclosing file or
 * describe block (`each: true`: before each test) and close them after; read the handle's fields
 * inside tests, once the hooks have run.
 */
export function useSandboxWithMerchant(options: SandboxWithMerchantOptions & { each?: boolean } = {}): SandboxWithMerchant {
  const handle = {} as SandboxWithMerchant;
  const [before, after] = options.each ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(async () => {
    Object.assign(handle, await startSandboxWithMerchant(options));
  });
  after(async () => {
    await handle.close?.();
  });
  return handle;
}
