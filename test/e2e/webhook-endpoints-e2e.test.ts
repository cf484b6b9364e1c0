// Registered webhook endpoints over real sockets: one event reaches only the endpoints subscribed
// to it, signed with each endpoint's own secret; during a rotation the signature header carries the
// new secret's signature alone (what a GitHub-style verifier compares whole) and the old secret's
// travels in X-Sandbox-Signature-Previous, until 24 h (sandbox clock) later.
import { describe, expect, it } from 'vitest';
import { hmacHex, verifySignature } from '../../src/signatures/signing.js';
import type { ReceivedWebhook } from '../helpers/fake-merchant.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { CREDS, s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const env = useSandboxWithMerchant({ flags: { retry: '50ms,50ms,50ms' } });
const bearer = { authorization: `Bearer ${CREDS.apiKey}` };

/** An approved S2S payment (frictionless card): publishes payment.authorized at once. */
async function approvedPayment(): Promise<string> {
  const { json } = await env.http.post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: `${env.merchant.url}/s2s` }));
  expect(json.status).toBe('Test Approved');
  return json.transID;
}

/** Waits until every delivery of the payment's events has finished, then returns what `path` received for it. */
async function deliveredFor(transId: string, path: string): Promise<ReceivedWebhook[]> {
  await waitFor(() => {
    const events = env.sandbox.store.events.list({ resourceId: transId, limit: 10 });
    const deliveries = events.flatMap((e) => env.sandbox.store.deliveries.list({ eventId: e.id, limit: 10 }));
    return deliveries.length > 0 && deliveries.every((d) => d.status === 'succeeded');
  }, `the deliveries of ${transId}`);
  return env.merchant.at(path).filter((r) => r.body.includes(transId));
}

const signatureOf = (r: ReceivedWebhook) => r.headers['x-sandbox-signature'] as string;

describe('registered webhook endpoints, end to end', () => {
  let authorized: { id: string; secret: string };

  it('delivers an event only to the endpoints subscribed to it, each signed with its own secret', async () => {
    authorized = (
      await env.http.post('/v1/webhook_endpoints', { url: `${env.merchant.url}/authorized`, events: ['payment.authorized'] }, bearer)
    ).json;
    const refunds = (
      await env.http.post(
        '/v1/webhook_endpoints',
        { url: `${env.merchant.url}/refunds`, events: ['refund.succeeded', 'refund.failed'] },
        bearer,
      )
    ).json;
    const everything = (await env.http.post('/v1/webhook_endpoints', { url: `${env.merchant.url}/everything`, events: ['*'] }, bearer))
      .json;
    expect(refunds.secret).not.toBe(authorized.secret);

    const transId = await approvedPayment();
    const [got] = await deliveredFor(transId, '/authorized');
    expect(got).toBeDefined();
    expect(await deliveredFor(transId, '/refunds')).toEqual([]);
    const [all] = await deliveredFor(transId, '/everything');

    expect(got!.headers['content-type']).toContain('application/json');
    const envelope = JSON.parse(got!.body);
    expect(envelope).toMatchObject({ event: 'payment.authorized', data: expect.objectContaining({ transID: transId }) });
    expect(Object.keys(envelope).sort()).toEqual(['created_at', 'data', 'event', 'id']);
    expect(got!.headers['x-sandbox-event-id']).toBe(envelope.id);
    expect(verifySignature(signatureOf(got!), authorized.secret, got!.body)).toBe(true);
    expect(verifySignature(signatureOf(got!), everything.secret, got!.body)).toBe(false);
    expect(verifySignature(signatureOf(all!), everything.secret, all!.body)).toBe(true);
    // The payment's own webhook_url keeps getting the S2S form webhook, signed with the merchant secret.
    const [s2s] = await deliveredFor(transId, '/s2s');
    expect(verifySignature(signatureOf(s2s!), CREDS.secret, s2s!.body)).toBe(true);

    // The events API shows the same event.
    const listed = await env.http.get(`/v1/events/${envelope.id}`, bearer);
    expect(listed.json).toEqual({ ...envelope, object: 'event' });
  });

  it('signs with the new secret alone in the signature header during a rotation, the old one in -Previous, until 24 h later', async () => {
    const rotated = (await env.http.post(`/v1/webhook_endpoints/${authorized.id}/rotate_secret`, undefined, bearer)).json;
    expect(rotated.secret).not.toBe(authorized.secret);

    const during = (await deliveredFor(await approvedPayment(), '/authorized'))[0]!;
    // As @octokit/webhooks-methods and other GitHub-style verifiers do: the whole header must equal sha256=<hex HMAC>.
    expect(signatureOf(during)).toBe(`sha256=${hmacHex(rotated.secret, during.body)}`);
    expect(during.headers['x-sandbox-signature-previous']).toBe(`sha256=${hmacHex(authorized.secret, during.body)}`);

    const advance = await env.http.post('/_sandbox/clock/advance', { duration: '24h' });
    expect(advance.status).toBe(200);

    const after = (await deliveredFor(await approvedPayment(), '/authorized'))[0]!;
    expect(signatureOf(after)).toBe(`sha256=${hmacHex(rotated.secret, after.body)}`);
    expect(after.headers).not.toHaveProperty('x-sandbox-signature-previous');
  });

  it('stops sending to a disabled or deleted endpoint', async () => {
    const paused = (await env.http.post('/v1/webhook_endpoints', { url: `${env.merchant.url}/paused`, events: ['*'] }, bearer)).json;
    await env.http.request('PATCH', `/v1/webhook_endpoints/${paused.id}`, { enabled: false }, bearer);
    await env.http.request('DELETE', `/v1/webhook_endpoints/${authorized.id}`, undefined, bearer);
    const transId = await approvedPayment();
    expect(await deliveredFor(transId, '/paused')).toEqual([]);
    expect(await deliveredFor(transId, '/authorized')).toEqual([]);
    expect(await deliveredFor(transId, '/everything')).toHaveLength(1);
  });
});
