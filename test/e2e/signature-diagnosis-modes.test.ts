// Signature diagnosis in the modes that sign a timestamp, and of what faults spoil on purpose: a
// clock advanced with POST /_sandbox/clock/advance (the webhook carries sandbox time, the handler
// compares with wall time), a timestamp header taken from another request, the Standard Webhooks
// secret forms and spellings (v1, missing, hex for base64), the bad-signature and stale-timestamp
// faults, and the library's diagnoseSignature() on a startSandbox() handle.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/index.js';
import { diagnose, s2sWebhook } from '../helpers/diagnose.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { CREDS, s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

/** The seeded whsec_test_sandbox in the form Standard Webhooks libraries take. */
const SEEDED_STANDARD_SECRET = 'whsec_d2hzZWNfdGVzdF9zYW5kYm94';

describe('timestamped mode', () => {
  const env = useSandboxWithMerchant({ flags: { signature: 'timestamped' }, each: true });

  it('valid while fresh; headers_changed when X-Sandbox-Timestamp is not the one signed', async () => {
    const hook = await s2sWebhook(env);
    expect(await diagnose(env, hook, CREDS.secret)).toMatchObject({ valid: true, cause: 'valid' });
    const later = String(Number(hook.headers['x-sandbox-timestamp']) + 1);
    const answer = await diagnose(env, { ...hook, headers: { ...hook.headers, 'x-sandbox-timestamp': later } }, CREDS.secret);
    expect(answer).toMatchObject({ valid: false, cause: 'headers_changed' });
    expect(answer.message).toContain(`X-Sandbox-Timestamp is ${later}, but attempt 1 of delivery whd_`);
  });

  it('stale_timestamp after POST /_sandbox/clock/advance: the message says the handler compared with wall time', async () => {
    expect((await env.http.post('/_sandbox/clock/advance', { duration: '2h' })).status).toBe(200);
    const hook = await s2sWebhook(env);
    const answer = await diagnose(env, hook, CREDS.secret);
    expect(answer).toMatchObject({ valid: false, cause: 'stale_timestamp' });
    expect(answer.message).toContain('2h ahead of the wall clock');
    expect(answer.message).toContain('your handler compares it with wall time');
  });

  it("services.signatures.diagnose() on a recorded attempt, judged when it was sent (the dashboard's call)", async () => {
    const hook = await s2sWebhook(env);
    const { services } = env.sandbox;
    const [attempt] = services.deliveries.attemptsOf(hook.headers['x-sandbox-delivery-id'] ?? '');
    const recorded = { headers: attempt?.requestHeaders ?? {}, body: attempt?.requestBody ?? '' };
    const atSend = (attempt?.startedAt ?? 0) - services.clock.offset();
    expect(services.signatures.diagnose(recorded, { checkedAt: atSend })).toMatchObject({ valid: true, cause: 'valid' });
    // The same request checked ten minutes later, as a replayed capture is.
    const later = services.signatures.diagnose(recorded, { checkedAt: atSend + 600_000 });
    expect(later).toMatchObject({ valid: false, cause: 'stale_timestamp' });
    expect(later.message).toContain('sandbox webhooks replay whd_');
  });

  it('stale_timestamp from the stale-timestamp fault, and injected_fault from bad-signature, each naming the rule', async () => {
    for (const [fault, cause] of [
      ['stale-timestamp', 'stale_timestamp'],
      ['bad-signature', 'injected_fault'],
    ]) {
      const path = `/${fault}`;
      await env.http.post('/_sandbox/faults', { spec: `url=${env.merchant.url}${path}:${fault}` });
      const answer = await diagnose(env, await s2sWebhook(env, path), CREDS.secret);
      expect(answer).toMatchObject({ valid: false, cause });
      expect(answer.message).toContain(`a ${fault} fault rule`);
    }
    await env.http.request('DELETE', '/_sandbox/faults');
  });
});

describe('standard mode (Standard Webhooks)', () => {
  const env = useSandboxWithMerchant({ flags: { signature: 'standard' }, each: true });

  it('valid with the Standard Webhooks form of the secret; other_secret with its text, which a library misreads', async () => {
    const hook = await s2sWebhook(env);
    expect(await diagnose(env, hook, SEEDED_STANDARD_SECRET)).toMatchObject({ valid: true, cause: 'valid' });
    const text = await diagnose(env, hook, CREDS.secret);
    expect(text).toMatchObject({ valid: false, cause: 'other_secret' });
    expect(text.message).toContain('pass its Standard Webhooks form');
  });

  it('missing_prefix without v1, and wrong_encoding with the digest in hex', async () => {
    const hook = await s2sWebhook(env);
    const base64 = hook.headers['webhook-signature']!.slice('v1,'.length);
    const bare = await diagnose(env, { ...hook, headers: { ...hook.headers, 'webhook-signature': base64 } }, SEEDED_STANDARD_SECRET);
    expect(bare).toMatchObject({ cause: 'missing_prefix' });
    expect(bare.message).toContain('webhook-signature holds the right digest without its "v1," prefix');
    const hex = `v1,${Buffer.from(base64, 'base64').toString('hex')}`;
    const encoded = await diagnose(env, { ...hook, headers: { ...hook.headers, 'webhook-signature': hex } }, SEEDED_STANDARD_SECRET);
    expect(encoded).toMatchObject({ cause: 'wrong_encoding' });
    expect(encoded.message).toContain('in hex; the sandbox writes it in base64');
  });

  it('stale_timestamp after a clock advance, as a Standard Webhooks library would refuse it', async () => {
    await env.http.post('/_sandbox/clock/advance', { duration: '1h' });
    const answer = await diagnose(env, await s2sWebhook(env), SEEDED_STANDARD_SECRET);
    expect(answer).toMatchObject({ valid: false, cause: 'stale_timestamp' });
    expect(answer.message).toMatch(/^webhook-timestamp is sandbox time, which is 1h ahead of the wall clock/);
  });
});

describe('diagnoseSignature() of the library', () => {
  let sandbox: SandboxHandle;
  let merchant: FakeMerchant;
  beforeAll(async () => {
    merchant = await startFakeMerchant();
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
    await merchant.close();
  });

  it('takes node:http headers and a Buffer body, and answers as the control API does', async () => {
    const res = await fetch(`${sandbox.url}/api/s2s`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(s2sBody({ ccno: '4242424242424242', webhook_url: `${merchant.url}/lib` })),
    });
    expect(res.status).toBe(200);
    const hook = await waitFor(() => merchant.at('/lib')[0], 'the webhook');
    const body = Buffer.from(hook.body);
    expect(sandbox.diagnoseSignature({ headers: hook.headers, body, secret: CREDS.secret })).toMatchObject({ valid: true, cause: 'valid' });
    const parsed = JSON.stringify(Object.fromEntries(new URLSearchParams(hook.body)));
    expect(sandbox.diagnoseSignature({ headers: hook.headers, body: parsed, secret: CREDS.secret }).cause).toBe('body_changed');
    expect(() => sandbox.diagnoseSignature({ headers: hook.headers, body, secret: '' })).toThrow(/secret/);
  });
});
