// POST /_sandbox/signatures/diagnose as an attacker sends it: a signature header of 200 000
// comma-separated entries, and a 700 KB body against a sandbox holding 1 000 merchants. Each used
// to hold the event loop for seconds (every key tried against every entry, the body hashed once
// per secret, mode and variant). The work is counted where it is done: every byte node:crypto's
// HMAC is fed on the diagnosis's path, and it stays under a bound whatever the request holds.
import * as crypto from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestSandbox, CREDS, type TestSandbox } from '../helpers/test-sandbox.js';

/** Bytes fed to HMACs since the last reset, by the sandbox's own code (node:crypto is replaced for the modules under test). */
const hashed = vi.hoisted(() => ({ bytes: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof crypto>();
  const createHmac = (...args: Parameters<typeof real.createHmac>) => {
    const hmac = real.createHmac(...args);
    const update = hmac.update.bind(hmac) as (data: string | Buffer, encoding?: crypto.Encoding) => crypto.Hmac;
    hmac.update = ((data: string | Buffer, encoding?: crypto.Encoding) => {
      hashed.bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.length;
      return update(data, encoding);
    }) as typeof hmac.update;
    return hmac;
  };
  return { ...real, default: { ...real, createHmac }, createHmac };
});

/** The most one diagnosis may hash: 64 MiB (src/signatures/work-budget.ts), with room for what is not counted there. */
const BOUND = 80 * 1024 * 1024;

let sb: TestSandbox;
let lastSecret: string;
beforeAll(() => {
  sb = createTestSandbox();
  // 1 000 merchants, each with its own webhook secret, as parallel test workers make them.
  for (let i = 0; i < 998; i++) lastSecret = sb.services.merchants.create().webhookSecret;
}, 120_000);
afterAll(() => sb.close());
beforeEach(() => {
  hashed.bytes = 0;
});

const diagnose = (body: Record<string, unknown>) => sb.request('POST', '/_sandbox/signatures/diagnose', body);
const hex = (secret: string, body: string) => crypto.createHmac('sha256', secret).update(body).digest('hex');

describe('signature diagnosis: bounded work', () => {
  it('a signature header of 200 000 comma-separated entries is a 400 naming the header, answered without trying them', async () => {
    // As many as a 1 MiB request holds.
    const entries = Array.from({ length: 200_000 }, (_, i) => i.toString(36)).join(',');
    const res = await diagnose({ headers: { 'X-Sandbox-Signature': entries }, body: '{"event":"payment.captured"}' });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'headers.X-Sandbox-Signature' });
    expect(res.json.error.message).toMatch(/^headers\.X-Sandbox-Signature is \d+ characters long; a signature header is at most 4096/);
    expect(hashed.bytes).toBe(0);
  });

  it('a header of 21 signatures is refused, and one of 20 is diagnosed', async () => {
    const body = '{"event":"payment.captured"}';
    const entries = (n: number) => Array.from({ length: n }, (_, i) => `sha256=${hex(`not-a-secret-${i}`, body)}`);
    const refused = await diagnose({ headers: { 'x-sandbox-signature': entries(21).join(',') }, body });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.error.message).toMatch(/holds 21 signatures; a webhook carries at most 20/);
    const last = [...entries(19), `sha256=${hex(CREDS.secret, body)}`].join(', ');
    const found = await diagnose({ headers: { 'x-sandbox-signature': last }, body });
    expect(found.status, found.text).toBe(200);
    expect(found.json).toMatchObject({ valid: true, cause: 'valid' });
  });

  it('a 700 KB body checked against 1 000 merchants hashes at most the bound, and the answer says the sandbox stopped', async () => {
    const body = JSON.stringify({ event: 'payment.captured', data: { note: 'x'.repeat(700_000) } });
    const res = await diagnose({ headers: { 'X-Sandbox-Signature': `sha256=${'ab'.repeat(32)}` }, body, secret: 'whsec_mine' });
    expect(res.status, res.text).toBe(200);
    expect(hashed.bytes).toBeGreaterThan(0);
    expect(hashed.bytes).toBeLessThanOrEqual(BOUND);
    expect(res.json).toMatchObject({ valid: false, cause: 'unknown' });
    expect(res.json.message).toMatch(/the sandbox stopped looking: comparing this 684 KB body .* with the 1000 secrets it holds/);
  }, 60_000);

  it('a body over 1 000 000 characters is a 400 naming body', async () => {
    const res = await diagnose({ headers: { 'X-Sandbox-Signature': 'sha256=00' }, body: 'x'.repeat(1_000_001) });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error.param).toBe('body');
    expect(hashed.bytes).toBe(0);
  });

  it('within the bound, the newest of 1 000 merchants is still found to have signed a webhook', async () => {
    const body = JSON.stringify({ event: 'payment.captured', id: 'evt_1', data: { amount: 1050 } });
    const res = await diagnose({ headers: { 'X-Sandbox-Signature': `sha256=${hex(lastSecret, body)}` }, body });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ valid: true, cause: 'valid' });
    expect(res.json.message).toMatch(/made over this body with merchant mer_\w+'s webhook secret/);
    expect(res.json.message).not.toContain(lastSecret);
  });
});
