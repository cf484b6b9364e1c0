// POST /_sandbox/signatures/sign (what `sandbox send --merchant/--endpoint` asks): the refusals. A
// deleted endpoint's secret no longer signs, whose secret signs is one of merchant_id or
// endpoint_id, and nothing that would break a header (a line break) goes into the headers it answers.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/signatures/signing.js';
import { AUTH } from '../helpers/payments-api.js';
import { CREDS, createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

const BODY = '{"event":"payment.captured","id":"evt_fixture_1"}';
const sign = (fields: Record<string, unknown>) =>
  sb.request('POST', '/_sandbox/signatures/sign', {
    event_type: 'payment.captured',
    content_type: 'application/json',
    body: BODY,
    ...fields,
  });

async function createEndpoint(): Promise<{ id: string; secret: string }> {
  const res = await sb.request('POST', '/v1/webhook_endpoints', { url: 'https://shop.example/hooks', events: ['*'] }, AUTH);
  expect(res.status, res.text).toBe(200);
  return res.json;
}

describe('POST /_sandbox/signatures/sign', () => {
  it("signs with a live endpoint's secret; once the endpoint is deleted, 404 resource_missing naming endpoint_id", async () => {
    const endpoint = await createEndpoint();
    const signed = await sign({ endpoint_id: endpoint.id, signature: 'plain' });
    expect(signed.status, signed.text).toBe(200);
    expect(verifySignature(signed.json.headers['x-sandbox-signature'], endpoint.secret, BODY)).toBe(true);

    expect((await sb.request('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, undefined, AUTH)).status).toBe(200);
    const res = await sign({ endpoint_id: endpoint.id, signature: 'plain' });
    expect(res.status, res.text).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'resource_missing', param: 'endpoint_id' });
    expect(res.json.error.message).toContain(`no webhook endpoint ${endpoint.id}`);
    expect(res.text).not.toContain(endpoint.secret);
  });

  it('an unknown endpoint or merchant is a 404 naming its field', async () => {
    expect((await sign({ endpoint_id: 'we_0000000000000000' })).json.error).toMatchObject({
      code: 'resource_missing',
      param: 'endpoint_id',
    });
    expect((await sign({ merchant_id: 'mer_nothere' })).json.error).toMatchObject({ code: 'resource_missing', param: 'merchant_id' });
  });

  it('merchant_id and endpoint_id together is a 400 naming merchant_id, and so is neither: one of them says whose secret signs', async () => {
    const endpoint = await createEndpoint();
    const both = await sign({ merchant_id: 'mer_sandbox', endpoint_id: endpoint.id });
    expect(both.status).toBe(400);
    expect(both.json.error).toMatchObject({
      code: 'parameter_invalid',
      param: 'merchant_id',
      message: expect.stringMatching(/^merchant_id and endpoint_id do not go together: give one of them/),
    });
    const neither = await sign({});
    expect(neither.status).toBe(400);
    expect(neither.json.error).toMatchObject({
      code: 'parameter_missing',
      param: 'merchant_id',
      message: 'give merchant_id or endpoint_id, one of them: whose secret signs the body',
    });
    expect((await sign({ merchant_id: 'mer_sandbox' })).status).toBe(200);
    expect((await sign({ endpoint_id: endpoint.id })).status).toBe(200);
  });

  it.each([
    ['event_type', 'payment.captured\r\nX-Injected: yes'],
    ['event_type', 'payment.captured\n'],
    ['event_id', 'evt_1\rX-Injected: yes'],
    ['content_type', 'application/json\nX-Injected: yes'],
  ])('%s with a line break (%j) is a 400 naming it: it would go into a header', async (field, value) => {
    const res = await sign({ merchant_id: 'mer_sandbox', [field]: value });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: field });
    expect(res.json.error.message).toContain(`${field} goes into a header`);
  });

  it('the headers it answers hold no line break, and carry what was asked', async () => {
    const res = await sign({ merchant_id: 'mer_sandbox', event_id: 'evt_fixture_1', signature: 'timestamped' });
    expect(res.status, res.text).toBe(200);
    expect(res.json.headers).toMatchObject({
      'content-type': 'application/json',
      'x-sandbox-event-type': 'payment.captured',
      'x-sandbox-event-id': 'evt_fixture_1',
    });
    for (const value of Object.values(res.json.headers as Record<string, string>)) expect(value).not.toMatch(/[\r\n]/);
    expect(CREDS.secret).toBe('whsec_test_sandbox');
    expect(res.text).not.toContain(CREDS.secret);
  });
});
