// Standard Webhooks signatures over real sockets, each checked by the reference verifier (the
// `standardwebhooks` package's Webhook.verify) the way a merchant's handler calls it: the sandbox
// started with --signature standard (S2S form webhooks with the seeded secret, one webhook-id across
// retries), an endpoint that chose standard on a plain sandbox (and its rotation),
// startSandbox({ signature: 'standard' }), and `sandbox start` with SANDBOX_SIGNATURE=standard.
import { afterAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startSandbox, type SandboxHandle } from '../../src/index.js';
import type { ReceivedWebhook } from '../helpers/fake-merchant.js';
import { startFakeMerchant } from '../helpers/fake-merchant.js';
import { startCliSandbox } from '../helpers/cli-sandbox.js';
import { useSandboxWithMerchant, type SandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { CREDS, s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

/** The seeded whsec_test_sandbox as Standard Webhooks libraries take it (the start banner shows it in this mode). */
const SEEDED_STANDARD_SECRET = 'whsec_d2hzZWNfdGVzdF9zYW5kYm94';
const bearer = { authorization: `Bearer ${CREDS.apiKey}` };

/** Webhook.verify as a merchant calls it; throws WebhookVerificationError when the signature is wrong. */
function verify(secret: string, hook: ReceivedWebhook): void {
  new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>, { jsonParse: false });
}

/** An approved S2S payment whose form webhook goes to `path` of the merchant; resolves with its transID. */
async function approvedPayment(env: SandboxWithMerchant, path: string): Promise<string> {
  const { json } = await env.http.post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: `${env.merchant.url}${path}` }));
  expect(json.status).toBe('Test Approved');
  return json.transID;
}

describe('--signature standard', () => {
  // The first attempt is answered 500, so every webhook comes twice.
  const env = useSandboxWithMerchant({ flags: { signature: 'standard', retry: '50ms' }, merchant: { statuses: [500] } });

  it('signs S2S form webhooks with the seeded secret so Webhook.verify accepts them, with one webhook-id across retries', async () => {
    const transId = await approvedPayment(env, '/s2s');
    const [first, retry] = await waitFor(() => {
      const got = env.merchant.at('/s2s').filter((r) => r.body.includes(transId));
      return got.length >= 2 ? got : undefined;
    }, 'the webhook and its retry');
    for (const hook of [first!, retry!]) {
      expect(hook.headers['content-type']).toContain('application/x-www-form-urlencoded');
      expect(hook.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(() => verify(SEEDED_STANDARD_SECRET, hook)).not.toThrow();
      expect(() => verify('whsec_dGVzdF9vdGhlcg==', hook)).toThrow('No matching signature found');
      // The informational headers stay; the GitHub-style signature header does not.
      expect(hook.headers['webhook-id']).toBe(hook.headers['x-sandbox-event-id']);
      expect(hook.headers['webhook-timestamp']).toBe(hook.headers['x-sandbox-timestamp']);
      expect(hook.headers).toHaveProperty('x-sandbox-delivery-id');
      expect(hook.headers).not.toHaveProperty('x-sandbox-signature');
    }
    expect(first!.headers['x-sandbox-attempt']).toBe('1');
    expect(retry!.headers['x-sandbox-attempt']).toBe('2');
    expect(retry!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
  });
});

describe('an endpoint with its own signature mode', () => {
  const env = useSandboxWithMerchant({ flags: { signature: 'plain' } });

  /** Registers an endpoint of every event at `path`. */
  async function endpoint(path: string, fields: Record<string, unknown> = {}) {
    const res = await env.http.post(
      '/v1/webhook_endpoints',
      { url: `${env.merchant.url}${path}`, events: ['payment.authorized'], ...fields },
      bearer,
    );
    expect(res.status).toBe(200);
    return res.json;
  }

  /** The payment.authorized envelope `path` got for the next approved payment. */
  async function nextDelivery(path: string): Promise<ReceivedWebhook> {
    const transId = await approvedPayment(env, '/s2s');
    return waitFor(() => env.merchant.at(path).find((r) => r.body.includes(transId)), `the event at ${path}`);
  }

  it('signs the Standard Webhooks way for an endpoint created with signature "standard", plain for the others', async () => {
    const standard = await endpoint('/standard', { signature: 'standard' });
    await endpoint('/plain');
    expect(standard.signature).toBe('standard');
    expect(standard.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const hook = await nextDelivery('/standard');
    expect(() => verify(standard.secret, hook)).not.toThrow();
    expect(hook.headers).not.toHaveProperty('x-sandbox-signature');
    const plain = await waitFor(() => env.merchant.at('/plain').at(-1), 'the event at /plain');
    expect(plain.headers['x-sandbox-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(plain.headers).not.toHaveProperty('webhook-signature');
    expect((await env.http.get(`/v1/webhook_endpoints/${standard.id}`, bearer)).json.signature).toBe('standard');
  });

  it('during a rotation webhook-signature holds both v1 signatures: Webhook.verify accepts the new secret and the old one', async () => {
    const created = await endpoint('/rotating', { signature: 'standard' });
    const rotated = (await env.http.post(`/v1/webhook_endpoints/${created.id}/rotate_secret`, undefined, bearer)).json;
    const hook = await nextDelivery('/rotating');
    expect(String(hook.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => verify(rotated.secret, hook)).not.toThrow();
    expect(() => verify(created.secret, hook)).not.toThrow();
  });

  it('goes back to the sandbox mode with signature null, and refuses a mode it does not know naming the field', async () => {
    const created = await endpoint('/switched', { signature: 'standard' });
    const updated = await env.http.request('PATCH', `/v1/webhook_endpoints/${created.id}`, { signature: null }, bearer);
    expect(updated.json.signature).toBeNull();
    const hook = await nextDelivery('/switched');
    expect(hook.headers['x-sandbox-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);

    const bad = await env.http.post('/v1/webhook_endpoints', { url: `${env.merchant.url}/x`, events: ['*'], signature: 'svix' }, bearer);
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'parameter_invalid', param: 'signature' });
    expect(bad.json.error.message).toMatch(/plain.*timestamped.*standard/);
  });
});

describe("startSandbox({ signature: 'standard' })", () => {
  let sandbox: SandboxHandle | undefined;
  afterAll(async () => {
    await sandbox?.close();
  });

  it('hands out the secret in the form Webhook.verify takes, and its webhooks verify with it', async () => {
    const merchant = await startFakeMerchant();
    try {
      sandbox = await startSandbox({ signature: 'standard' });
      expect(sandbox.credentials.webhookSecret).toBe(SEEDED_STANDARD_SECRET);
      const res = await fetch(`${sandbox.url}/api/s2s`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(s2sBody({ ccno: '4242424242424242', webhook_url: `${merchant.url}/hook` })),
      });
      expect(res.status).toBe(200);
      const hook = await waitFor(() => merchant.received[0], 'the webhook');
      expect(() => verify(sandbox!.credentials.webhookSecret, hook)).not.toThrow();
    } finally {
      await merchant.close();
    }
  });

  it('refuses a mode it does not know, naming the option and the modes', async () => {
    await expect(startSandbox({ signature: 'svix' })).rejects.toThrow('--signature must be plain or timestamped or standard, got "svix"');
  });
});

describe('sandbox start with SANDBOX_SIGNATURE=standard (the built CLI)', () => {
  it('names the mode and shows the secret to verify with in the banner, and its webhooks verify with that secret', async () => {
    const merchant = await startFakeMerchant();
    const cli = await startCliSandbox(['--db', ':memory:'], { env: { SANDBOX_SIGNATURE: 'standard', NO_COLOR: '1' } });
    try {
      expect(cli.stdout).toContain('signed webhook-signature (standard)');
      const secret = /webhook secret (whsec_\S+)/.exec(cli.stdout)![1]!;
      expect(secret).toBe(SEEDED_STANDARD_SECRET);
      await fetch(`${cli.url}/api/s2s`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(s2sBody({ ccno: '4242424242424242', webhook_url: `${merchant.url}/hook` })),
      });
      const hook = await waitFor(() => merchant.received[0], 'the webhook');
      expect(() => verify(secret, hook)).not.toThrow();
    } finally {
      await cli.stop();
      await merchant.close();
    }
  });
});
