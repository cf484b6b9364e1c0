// /v1/webhook_endpoints: CRUD, validation errors naming their field, the secret shown only on
// create and rotate, isolation between merchants, and the fan-out of published events.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { webhookEndpointView as webhookEndpointObject, webhookEndpointWithSecretView } from '../../src/views/webhook-endpoint.js';
import { listOf } from '../../src/views/list.js';
import { AUTH, OTHER } from '../helpers/payments-api.js';
import type { Json } from '../helpers/json.js';

let sandbox: TestSandbox;
beforeEach(() => {
  sandbox = createTestSandbox();
});
afterEach(() => sandbox.close());

const DAY_MS = 24 * 60 * 60 * 1000;

function api(method: string, path: string, body?: unknown, headers: Record<string, string> = AUTH) {
  return sandbox.request(method, path, body, headers);
}

async function createEndpoint(body: Record<string, unknown> = {}, headers = AUTH) {
  const res = await api(
    'POST',
    '/v1/webhook_endpoints',
    { url: 'https://shop.example/hooks', events: ['payment.authorized'], ...body },
    headers,
  );
  expect(res.status).toBe(200);
  return res.json;
}

/** An error body without its request id, to compare two answers. */
const withoutRequestId = (json: Json) => ({ ...json, error: { ...json.error, request_id: undefined } });

describe('POST /v1/webhook_endpoints', () => {
  it('creates an enabled endpoint and shows its whsec_ secret', async () => {
    const res = await api('POST', '/v1/webhook_endpoints', {
      url: 'https://shop.example/hooks',
      events: ['payment.authorized', 'refund.succeeded'],
      description: 'orders',
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      object: 'webhook_endpoint',
      url: 'https://shop.example/hooks',
      events: ['payment.authorized', 'refund.succeeded'],
      description: 'orders',
      enabled: true,
      previous_secret_expires_at: null,
      created_at: '2026-01-15T12:00:00.000Z',
    });
    expect(res.json.id).toMatch(/^we_[A-Za-z0-9]{16}$/);
    expect(res.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // The answer is exactly what /openapi.json documents.
    expect(webhookEndpointWithSecretView().safeParse(res.json).success).toBe(true);
  });

  it('accepts ["*"], enabled false, and drops repeated names', async () => {
    expect((await createEndpoint({ events: ['*'] })).events).toEqual(['*']);
    expect((await createEndpoint({ enabled: false })).enabled).toBe(false);
    expect((await createEndpoint({ events: ['payment.declined', 'payment.declined'] })).events).toEqual(['payment.declined']);
  });

  it.each([
    [{ events: ['*'] }, 'parameter_missing', 'url', 'url is required'],
    [{ url: 'ftp://shop.example/hooks', events: ['*'] }, 'parameter_invalid', 'url', 'absolute http(s) URL'],
    [{ url: 'javascript:alert(1)', events: ['*'] }, 'parameter_invalid', 'url', 'absolute http(s) URL'],
    [{ url: 'https://shop.example/hooks' }, 'parameter_missing', 'events', 'events is required'],
    [{ url: 'https://shop.example/hooks', events: [] }, 'parameter_invalid', 'events', 'non-empty list of event names'],
    [{ url: 'https://shop.example/hooks', events: 'payment.authorized' }, 'parameter_invalid', 'events', 'non-empty list of event names'],
    [
      { url: 'https://shop.example/hooks', events: ['payment.authorised'] },
      'parameter_invalid',
      'events.0',
      '"payment.authorised" is not an event name',
    ],
    [{ url: 'https://shop.example/hooks', events: ['*', 'refund.failed'] }, 'parameter_invalid', 'events', 'send ["*"] alone'],
    [{ url: 'https://shop.example/hooks', events: ['*'], enabled: 'yes' }, 'parameter_invalid', 'enabled', 'true to send events'],
    [
      { url: 'https://shop.example/hooks', events: ['*'], description: 'x'.repeat(501) },
      'parameter_invalid',
      'description',
      'up to 500 characters',
    ],
    [{ url: 'https://shop.example/hooks', events: ['*'], secret: 'whsec_mine' }, 'parameter_unknown', 'secret', 'secret is not a field'],
  ])('refuses %j with 400 %s on %s', async (body, code, param, message) => {
    const res = await api('POST', '/v1/webhook_endpoints', body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code, param });
    expect(res.json.error.message).toContain(message);
  });

  it('lists every valid event name when one is unknown', async () => {
    const res = await api('POST', '/v1/webhook_endpoints', { url: 'https://shop.example/hooks', events: ['charge.succeeded'] });
    expect(res.json.error.message).toContain('payment.requires_action');
    expect(res.json.error.message).toContain('checkout.session.expired');
  });

  it('refuses a body that is not JSON with 400 invalid_json', async () => {
    const res = await api('POST', '/v1/webhook_endpoints', '{"url":', { ...AUTH, 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_json');
  });

  it('needs an API key', async () => {
    const res = await api('POST', '/v1/webhook_endpoints', { url: 'https://shop.example/hooks', events: ['*'] }, {});
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('authentication_required');
  });
});

describe('reading, updating and deleting', () => {
  it('never shows the secret again after creation', async () => {
    const created = await createEndpoint();
    const one = await api('GET', `/v1/webhook_endpoints/${created.id}`);
    expect(one.status).toBe(200);
    expect(one.json).not.toHaveProperty('secret');
    expect(one.json).toEqual({ ...created, secret: undefined });
    const list = await api('GET', '/v1/webhook_endpoints');
    expect(list.text).not.toContain(created.secret);
    const updated = await api('POST', `/v1/webhook_endpoints/${created.id}`, { description: 'renamed' });
    expect(updated.json).not.toHaveProperty('secret');
  });

  it('updates url, events, description and enabled with POST or PATCH', async () => {
    const created = await createEndpoint();
    sandbox.clock.advance(60_000);
    const post = await api('POST', `/v1/webhook_endpoints/${created.id}`, { url: 'http://127.0.0.1:8080/in', events: ['refund.failed'] });
    expect(post.status).toBe(200);
    expect(post.json).toMatchObject({
      url: 'http://127.0.0.1:8080/in',
      events: ['refund.failed'],
      description: '',
      enabled: true,
      updated_at: '2026-01-15T12:01:00.000Z',
    });
    const patch = await api('PATCH', `/v1/webhook_endpoints/${created.id}`, { enabled: false, description: 'paused' });
    expect(patch.json).toMatchObject({ url: 'http://127.0.0.1:8080/in', events: ['refund.failed'], description: 'paused', enabled: false });
    expect((await api('GET', `/v1/webhook_endpoints/${created.id}`)).json.enabled).toBe(false);
  });

  it('validates updates the same way as creation', async () => {
    const created = await createEndpoint();
    const res = await api('PATCH', `/v1/webhook_endpoints/${created.id}`, { events: ['nope'] });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'events.0' });
    const unknown = await api('POST', `/v1/webhook_endpoints/${created.id}`, { event: ['*'] });
    expect(unknown.json.error).toMatchObject({ code: 'parameter_unknown', param: 'event' });
  });

  it('deletes: the endpoint is gone from get, list, update and a second delete', async () => {
    const created = await createEndpoint();
    const res = await api('DELETE', `/v1/webhook_endpoints/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: created.id, object: 'webhook_endpoint', deleted: true });
    for (const [method, path] of [
      ['GET', `/v1/webhook_endpoints/${created.id}`],
      ['DELETE', `/v1/webhook_endpoints/${created.id}`],
      ['POST', `/v1/webhook_endpoints/${created.id}/rotate_secret`],
    ] as const) {
      const gone = await api(method, path);
      expect(gone.status, `${method} ${path}`).toBe(404);
      expect(gone.json.error).toMatchObject({ code: 'resource_missing', param: 'id' });
    }
    expect((await api('GET', '/v1/webhook_endpoints')).json.data).toEqual([]);
  });

  it('answers 404 for an id that never existed', async () => {
    const res = await api('GET', '/v1/webhook_endpoints/we_missing');
    expect(res.status).toBe(404);
    expect(res.json.error.message).toContain('no webhook endpoint we_missing');
  });
});

describe('GET /v1/webhook_endpoints', () => {
  it('pages newest first with limit and starting_after', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await createEndpoint({ description: `n${i}` })).id);
      sandbox.clock.advance(1000);
    }
    const first = await api('GET', '/v1/webhook_endpoints?limit=2');
    expect(first.json).toMatchObject({ object: 'list', has_more: true });
    expect(listOf(webhookEndpointObject)().strict().safeParse(first.json).success).toBe(true);
    expect(first.json.data.map((e: Json) => e.id)).toEqual([ids[2], ids[1]]);
    const second = await api('GET', `/v1/webhook_endpoints?limit=2&starting_after=${ids[1]}`);
    expect(second.json.data.map((e: Json) => e.id)).toEqual([ids[0]]);
    expect(second.json.has_more).toBe(false);
  });

  it.each([
    ['limit=0', 'parameter_invalid', 'limit'],
    ['limit=101', 'parameter_invalid', 'limit'],
    ['limit=ten', 'parameter_invalid', 'limit'],
    ['page=2', 'parameter_unknown', 'page'],
  ])('refuses ?%s with 400 %s on %s', async (query, code, param) => {
    const res = await api('GET', `/v1/webhook_endpoints?${query}`);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code, param });
  });
});

describe('POST /v1/webhook_endpoints/{id}/rotate_secret', () => {
  it('shows a new secret and when the old one stops signing (24 h of sandbox time)', async () => {
    const created = await createEndpoint();
    sandbox.clock.advance(5 * 60_000);
    const res = await api('POST', `/v1/webhook_endpoints/${created.id}/rotate_secret`);
    expect(res.status).toBe(200);
    expect(res.json.secret).toMatch(/^whsec_/);
    expect(res.json.secret).not.toBe(created.secret);
    expect(res.json.previous_secret_expires_at).toBe(new Date(sandbox.clock.now() + DAY_MS).toISOString());
    expect(webhookEndpointWithSecretView().safeParse(res.json).success).toBe(true);
    expect((await api('GET', `/v1/webhook_endpoints/${created.id}`)).json).not.toHaveProperty('secret');
  });

  it('signs with the new secret, plus the old one until it expires', async () => {
    const created = await createEndpoint();
    const rotated = (await api('POST', `/v1/webhook_endpoints/${created.id}/rotate_secret`)).json;
    const delivery = { endpointId: created.id, merchantId: 'mer_sandbox' } as never;
    expect(sandbox.services.webhookSecrets(delivery)).toEqual([rotated.secret, created.secret]);
    sandbox.clock.advance(DAY_MS);
    expect(sandbox.services.webhookSecrets(delivery)).toEqual([rotated.secret]);
  });
});

describe('isolation: another merchant sees nothing', () => {
  it("answers every route on another merchant's endpoint exactly like a missing one", async () => {
    const mine = await createEndpoint();
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/v1/webhook_endpoints/{id}'],
      ['POST', '/v1/webhook_endpoints/{id}', { description: 'x' }],
      ['PATCH', '/v1/webhook_endpoints/{id}', { enabled: false }],
      ['DELETE', '/v1/webhook_endpoints/{id}'],
      ['POST', '/v1/webhook_endpoints/{id}/rotate_secret'],
    ];
    for (const [method, path, body] of routes) {
      const theirs = await api(method, path.replace('{id}', mine.id), body, OTHER);
      const missing = await api(method, path.replace('{id}', 'we_0000000000000000'), body, OTHER);
      expect(theirs.status, `${method} ${path}`).toBe(404);
      expect(withoutRequestId(theirs.json), `${method} ${path}`).toEqual(
        withoutRequestId({
          ...missing.json,
          error: { ...missing.json.error, message: missing.json.error.message.replace('we_0000000000000000', mine.id) },
        }),
      );
    }
    // Nothing changed for the owner.
    const after = (await api('GET', `/v1/webhook_endpoints/${mine.id}`)).json;
    expect(after).toMatchObject({ description: '', enabled: true, previous_secret_expires_at: null });
  });

  it("lists only the caller's endpoints and refuses another merchant's id as a cursor like an unknown one", async () => {
    const mine = await createEndpoint();
    const theirs = await createEndpoint({}, OTHER);
    expect((await api('GET', '/v1/webhook_endpoints', undefined, OTHER)).json.data.map((e: Json) => e.id)).toEqual([theirs.id]);
    // Another merchant's endpoint as a cursor is a 404 worded exactly like an unknown id.
    const cursor = await api('GET', `/v1/webhook_endpoints?starting_after=${mine.id}`, undefined, OTHER);
    const unknown = await api('GET', '/v1/webhook_endpoints?starting_after=we_unknown', undefined, OTHER);
    expect([cursor.status, unknown.status]).toEqual([404, 404]);
    expect(cursor.json.error).toMatchObject({ code: 'resource_missing', param: 'starting_after' });
    expect(cursor.json.error.message.replace(mine.id, 'X')).toBe(unknown.json.error.message.replace('we_unknown', 'X'));
  });
});

describe('fan-out of published events', () => {
  it('queues one signed JSON delivery per enabled endpoint subscribed to the event, of its merchant only', async () => {
    const authorized = await createEndpoint({ url: 'http://127.0.0.1:9/authorized', events: ['payment.authorized'] });
    const all = await createEndpoint({ url: 'http://127.0.0.1:9/all', events: ['*'] });
    await createEndpoint({ url: 'http://127.0.0.1:9/refunds', events: ['refund.succeeded'] });
    await createEndpoint({ url: 'http://127.0.0.1:9/paused', events: ['*'], enabled: false });
    const deleted = await createEndpoint({ url: 'http://127.0.0.1:9/deleted', events: ['*'] });
    await api('DELETE', `/v1/webhook_endpoints/${deleted.id}`);
    await createEndpoint({ url: 'http://127.0.0.1:9/other-merchant', events: ['*'] }, OTHER);

    const pay = await sandbox.request('POST', '/api/s2s', s2sBody({ ccno: '4242424242424242' }));
    expect(pay.json.status).toBe('Test Approved');
    const event = sandbox.store.events.list({ merchantId: 'mer_sandbox', type: 'payment.authorized', limit: 1 })[0]!;
    const deliveries = sandbox.store.deliveries.list({ eventId: event.id, limit: 10 });
    const toEndpoints = deliveries.filter((d) => d.endpointId !== null);
    expect(toEndpoints.map((d) => d.url).sort()).toEqual(['http://127.0.0.1:9/all', 'http://127.0.0.1:9/authorized']);
    expect(toEndpoints.map((d) => d.endpointId).sort()).toEqual([all.id, authorized.id].sort());
    // The S2S webhook_url still gets its own form-encoded webhook, signed with the merchant secret.
    const form = deliveries.filter((d) => d.endpointId === null);
    expect(form.map((d) => d.url)).toEqual(['http://127.0.0.1:9/webhooks']);
    // ...with exactly the spec §6.1 fields: data.object is the JSON envelope's, not the form's.
    expect([...new URLSearchParams(form[0]!.body).keys()].sort()).toEqual([
      'bill_amt',
      'bill_currency',
      'ccno',
      'mop',
      'order_status',
      'reference',
      'response',
      'status',
      'transID',
    ]);
    for (const d of toEndpoints) {
      expect(d.contentType).toBe('application/json');
      expect(JSON.parse(d.body)).toEqual({
        event: 'payment.authorized',
        id: event.id,
        data: { object: 's2s_transaction', ...event.data },
        created_at: '2026-01-15T12:00:00.000Z',
      });
    }
  });
});
