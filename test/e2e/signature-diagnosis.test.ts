// POST /_sandbox/signatures/diagnose with what a merchant's handler really received: a sandbox
// delivers to a fake merchant, the test takes the received headers and body, makes the mistake a
// handler makes (a framework re-serialising the body, a secret read with its newline, the other
// merchant's secret, a rotated secret, an advanced clock, a hand-built header without its prefix
// or in base64) and asks the sandbox why the check fails. Every answer is checked against the
// OpenAPI document on the way (helpers/http.ts), and no answer ever shows a secret.
import { stringify as querystringify } from 'node:querystring';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { diagnose, recorded, heldWebhook, s2sWebhook, secretSeen } from '../helpers/diagnose.js';
import { useSandboxWithMerchant, type SandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { CREDS } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const bearer = { authorization: `Bearer ${CREDS.apiKey}` };
/** Registers an endpoint for payment.authorized at `path`; answers it with its secret. */
async function endpoint(env: SandboxWithMerchant, path: string): Promise<{ id: string; secret: string }> {
  const res = await env.http.post('/v1/webhook_endpoints', { url: `${env.merchant.url}${path}`, events: ['payment.authorized'] }, bearer);
  secretSeen(res.json.secret);
  return res.json;
}

/** The next JSON envelope `path` receives (an approved S2S payment publishes payment.authorized). */
async function jsonWebhook(env: SandboxWithMerchant, path: string) {
  const seen = env.merchant.at(path).length;
  await s2sWebhook(env);
  return recorded(env, heldWebhook(await waitFor(() => env.merchant.at(path)[seen], `the event at ${path}`)));
}

/** JSON with every object's keys sorted, as json.dumps(sort_keys=True) writes it. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}

describe('a plain-mode sandbox delivering to a fake merchant', () => {
  const env = useSandboxWithMerchant({ flags: { signature: 'plain' } });

  it('valid: the webhook as received, with the merchant secret or with no secret at all', async () => {
    const hook = await s2sWebhook(env);
    expect(await diagnose(env, hook, CREDS.secret)).toMatchObject({ valid: true, cause: 'valid' });
    const without = await diagnose(env, hook);
    expect(without).toMatchObject({ valid: true, cause: 'valid' });
    expect(without.message).toContain("merchant mer_sandbox's webhook secret");
  });

  it('form_reencoded: the S2S form parsed and encoded again with querystring (spaces as %20)', async () => {
    const hook = await s2sWebhook(env);
    // A URLSearchParams round trip gives the very bytes the sandbox sent, which is why the sandbox encodes that way.
    expect((await diagnose(env, { ...hook, body: new URLSearchParams(hook.body).toString() }, CREDS.secret)).valid).toBe(true);
    const reencoded = querystringify(Object.fromEntries(new URLSearchParams(hook.body)));
    const answer = await diagnose(env, { ...hook, body: reencoded }, CREDS.secret);
    expect(answer).toMatchObject({ valid: false, cause: 'form_reencoded' });
    expect(answer.message).toContain('spaces are %20 instead of +');
    const reordered = new URLSearchParams([...new URLSearchParams(hook.body)].sort(([a], [b]) => a.localeCompare(b))).toString();
    expect((await diagnose(env, { ...hook, body: reordered }, CREDS.secret)).message).toContain('the fields are in another order');
  });

  it('body_changed: a newline added by a file written with echo, and an amount changed on the way', async () => {
    const hook = await s2sWebhook(env);
    const newline = await diagnose(env, { ...hook, body: `${hook.body}\n` }, CREDS.secret);
    expect(newline).toMatchObject({ valid: false, cause: 'body_changed' });
    expect(newline.message).toContain('ends with "\\n"');
    const tampered = await diagnose(env, { ...hook, body: hook.body.replace('bill_amt=10.50', 'bill_amt=1.00') });
    expect(tampered).toMatchObject({ valid: false, cause: 'body_changed' });
    expect(tampered.message).toMatch(/differs from character \d+ on/);
  });

  it('secret_whitespace: the secret read from a file with its newline, or pasted with a space', async () => {
    const hook = await s2sWebhook(env);
    const newline = await diagnose(env, hook, `${CREDS.secret}\n`);
    expect(newline).toMatchObject({ valid: false, cause: 'secret_whitespace' });
    expect(newline.message).toContain('ends with a newline');
    expect((await diagnose(env, hook, ` ${CREDS.secret}`)).cause).toBe('secret_whitespace');
  });

  it("other_secret: the other merchant's secret, a merchant made on demand, and the Standard Webhooks form in plain mode", async () => {
    const hook = await s2sWebhook(env);
    const other = await diagnose(env, hook, CREDS.other.secret);
    expect(other).toMatchObject({ valid: false, cause: 'other_secret' });
    expect(other.message).toContain("merchant mer_other's webhook secret");
    expect(other.message).toContain("signed with merchant mer_sandbox's webhook secret");
    const made = (await env.http.post('/_sandbox/merchants', {})).json;
    secretSeen(made.webhook_secret);
    try {
      expect((await diagnose(env, hook, made.webhook_secret)).message).toContain(`merchant ${made.id}'s webhook secret`);
    } finally {
      await env.http.request('DELETE', `/_sandbox/merchants/${made.id}`);
    }
    const standardForm = await diagnose(env, hook, 'whsec_d2hzZWNfdGVzdF9zYW5kYm94');
    expect(standardForm).toMatchObject({ cause: 'other_secret' });
    expect(standardForm.message).toContain('Standard Webhooks form');
  });

  it('wrong_secret: a secret the sandbox does not know; the answer says whose secret signs', async () => {
    const hook = await s2sWebhook(env);
    const answer = await diagnose(env, hook, 'whsec_copied_from_another_project');
    expect(answer).toMatchObject({ valid: false, cause: 'wrong_secret' });
    expect(answer.message).toContain("merchant mer_sandbox's webhook secret");
  });

  it('missing_prefix and wrong_encoding: a header built by hand without sha256=, or with the digest in base64', async () => {
    const hook = await s2sWebhook(env);
    const hex = hook.headers['x-sandbox-signature']!.slice('sha256='.length);
    const bare = await diagnose(env, { ...hook, headers: { ...hook.headers, 'x-sandbox-signature': hex } }, CREDS.secret);
    expect(bare).toMatchObject({ valid: false, cause: 'missing_prefix' });
    expect(bare.message).toContain('without its "sha256=" prefix');
    const base64 = `sha256=${Buffer.from(hex, 'hex').toString('base64')}`;
    const encoded = await diagnose(env, { ...hook, headers: { ...hook.headers, 'x-sandbox-signature': base64 } });
    expect(encoded).toMatchObject({ valid: false, cause: 'wrong_encoding' });
    expect(encoded.message).toContain('in base64');
  });

  it('json_reserialized: an endpoint envelope serialised again by JSON.stringify, or with its keys sorted; re-indented, it lacks the final newline', async () => {
    const we = await endpoint(env, '/json');
    try {
      const hook = await jsonWebhook(env, '/json');
      // The sandbox's bodies are indented and end with a newline: no serialiser writes them back the same.
      const compact = await diagnose(env, { ...hook, body: JSON.stringify(JSON.parse(hook.body)) }, we.secret);
      expect(compact).toMatchObject({ valid: false, cause: 'json_reserialized' });
      expect(compact.message).toContain('other whitespace (indentation, spaces after , and :)');
      const reindented = await diagnose(env, { ...hook, body: JSON.stringify(JSON.parse(hook.body), null, 2) }, we.secret);
      expect(reindented).toMatchObject({ valid: false, cause: 'body_changed' });
      expect(reindented.message).toContain('lacks the "\\n" at its end the sandbox sent');
      const sorted = await diagnose(env, { ...hook, body: JSON.stringify(sortedKeys(JSON.parse(hook.body))) }, we.secret);
      expect(sorted).toMatchObject({ valid: false, cause: 'json_reserialized' });
      expect(sorted.message).toContain('keys in another order');
      // The merchant's own secret is not the endpoint's: the answer names both, shows neither.
      const merchantSecret = await diagnose(env, hook, CREDS.secret);
      expect(merchantSecret).toMatchObject({ cause: 'other_secret' });
      expect(merchantSecret.message).toContain(`endpoint ${we.id}'s secret`);
    } finally {
      await env.http.request('DELETE', `/v1/webhook_endpoints/${we.id}`, undefined, bearer);
    }
  });

  it("other_secret: another endpoint's secret names that endpoint", async () => {
    const [first, second] = [await endpoint(env, '/first'), await endpoint(env, '/second')];
    try {
      const hook = await jsonWebhook(env, '/first');
      const answer = await diagnose(env, hook, second.secret);
      expect(answer).toMatchObject({ valid: false, cause: 'other_secret' });
      expect(answer.message).toContain(`endpoint ${second.id}'s secret`);
      expect(answer.message).toContain(`endpoint ${first.id}'s secret`);
    } finally {
      for (const we of [first, second]) await env.http.request('DELETE', `/v1/webhook_endpoints/${we.id}`, undefined, bearer);
    }
  });

  it('previous_secret: the secret a rotation replaced, and a delivery signed before the rotation checked with the new one', async () => {
    const we = await endpoint(env, '/rotating');
    try {
      const before = await jsonWebhook(env, '/rotating');
      const rotated = (await env.http.post(`/v1/webhook_endpoints/${we.id}/rotate_secret`, undefined, bearer)).json;
      secretSeen(rotated.secret);
      const after = await jsonWebhook(env, '/rotating');
      const old = await diagnose(env, after, we.secret);
      expect(old).toMatchObject({ valid: false, cause: 'previous_secret' });
      expect(old.message).toContain('X-Sandbox-Signature-Previous');
      const early = await diagnose(env, before, rotated.secret);
      expect(early).toMatchObject({ valid: false, cause: 'previous_secret' });
      expect(early.message).toContain('signed before endpoint');
      expect(early.message).toContain('sandbox webhooks replay whd_');
    } finally {
      await env.http.request('DELETE', `/v1/webhook_endpoints/${we.id}`, undefined, bearer);
    }
  });

  it('missing_signature and unknown: headers without the signature, a body no known secret signed', async () => {
    const hook = await s2sWebhook(env);
    const { 'x-sandbox-signature': _, ...unsigned } = hook.headers;
    expect((await diagnose(env, { ...hook, headers: unsigned }, CREDS.secret)).cause).toBe('missing_signature');
    const forged = { 'x-sandbox-signature': `sha256=${createHmac('sha256', 'whsec_someone_else').update('a=1').digest('hex')}` };
    const answer = await diagnose(env, { headers: forged, body: 'a=1' }, CREDS.secret);
    expect(answer).toMatchObject({ valid: false, cause: 'unknown' });
    expect(answer.message).toContain('the headers name no delivery of this sandbox');
  });

  it('a request a test built (no delivery): signed right, without its prefix, with a padded secret, with the other merchant secret', async () => {
    const body = 'transID=1&status=Test+Approved';
    const hex = createHmac('sha256', CREDS.secret).update(body).digest('hex');
    const built = (signature: string) => ({ headers: { 'X-Sandbox-Signature': signature }, body });
    expect(await diagnose(env, built(`sha256=${hex}`), CREDS.secret)).toMatchObject({ valid: true, cause: 'valid' });
    expect((await diagnose(env, built(hex), CREDS.secret)).cause).toBe('missing_prefix');
    expect((await diagnose(env, built(`sha256=${hex}`), `${CREDS.secret}\n`)).cause).toBe('secret_whitespace');
    const known = await diagnose(env, built(`sha256=${hex}`), CREDS.other.secret);
    expect(known).toMatchObject({ cause: 'other_secret' });
    expect(known.message).toContain("merchant mer_sandbox's webhook secret");
    expect((await diagnose(env, built(`sha256=${hex}`))).message).toContain(
      "made over this body with merchant mer_sandbox's webhook secret",
    );
    const named = { headers: { 'X-Sandbox-Signature': `sha256=${hex}`, 'X-Sandbox-Delivery-Id': 'whd_fromAnotherSandbox' }, body };
    const elsewhere = await diagnose(env, named, 'whsec_wrong');
    expect(elsewhere).toMatchObject({ valid: false, cause: 'other_secret' });
    expect(elsewhere.message).toContain('the headers name delivery whd_fromAnotherSandbox, which this sandbox does not know');
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const bad = async (body: unknown) => (await env.http.post('/_sandbox/signatures/diagnose', body)).json.error;
    expect(await bad({ headers: {} })).toMatchObject({ code: 'parameter_missing', param: 'body' });
    expect(await bad({ headers: { 'X-Sandbox-Signature': 'a', 'x-sandbox-signature': 'b' }, body: '' })).toMatchObject({
      code: 'parameter_invalid',
      param: 'headers',
    });
    expect(await bad({ headers: { 'x-sandbox-attempt': 1 }, body: '' })).toMatchObject({
      code: 'parameter_invalid',
      param: 'headers.x-sandbox-attempt',
    });
    expect(await bad({ headers: {}, body: '', secret: '' })).toMatchObject({ param: 'secret' });
    expect(await bad({ headers: {}, body: '', secrets: 'x' })).toMatchObject({ code: 'parameter_unknown', param: 'secrets' });
  });
});
