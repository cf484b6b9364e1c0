// GET /v1/events and /v1/events/{id}: the merchant's own events (S2S ones too) in the envelope the
// webhooks carry, with filters and pagination; another merchant's event is a 404 like a missing one.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { eventView as eventObject } from '../../src/views/event.js';
import { listOf } from '../../src/views/list.js';
import { AUTH, OTHER } from '../helpers/payments-api.js';
import type { Json } from '../helpers/json.js';

let sandbox: TestSandbox;
beforeEach(() => {
  sandbox = createTestSandbox();
});
afterEach(() => sandbox.close());

const START_S = Date.UTC(2026, 0, 15, 12, 0, 0) / 1000;

const get = (path: string, headers: Record<string, string> = AUTH) => sandbox.request('GET', path, undefined, headers);

/** An S2S payment with a scripted outcome; returns its transID. */
async function pay(card: string, other = false): Promise<string> {
  const creds = other ? { public_key: CREDS.other.publicKey, terNO: CREDS.other.terNO } : {};
  const res = await sandbox.request('POST', '/api/s2s', s2sBody({ ccno: card, ...creds }));
  expect(res.status).toBe(200);
  return res.json.transID;
}

const APPROVE = '4242424242424242';
const DECLINE = '4000000000000002';
const withoutRequestId = (json: Json) => ({ ...json, error: { ...json.error, request_id: undefined } });

describe('GET /v1/events', () => {
  it("lists the merchant's events newest first in the webhook envelope", async () => {
    const approved = await pay(APPROVE);
    sandbox.clock.advance(1000);
    const declined = await pay(DECLINE);
    await pay(APPROVE, true);
    const res = await get('/v1/events');
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['data', 'has_more', 'object']);
    // The answer is exactly what /openapi.json documents.
    expect(listOf(eventObject)().strict().safeParse(res.json).success).toBe(true);
    expect(res.json).toMatchObject({ object: 'list', has_more: false });
    expect(res.json.data.map((e: Json) => [e.event, e.data.transID])).toEqual([
      ['payment.declined', declined],
      ['payment.authorized', approved],
    ]);
    const [first] = res.json.data;
    expect(Object.keys(first).sort()).toEqual(['created_at', 'data', 'event', 'id', 'object']);
    expect(first).toMatchObject({ object: 'event', created_at: '2026-01-15T12:00:01.000Z' });
    expect(first.id).toMatch(/^evt_/);
  });

  it('filters by type and resource_id', async () => {
    const approved = await pay(APPROVE);
    await pay(DECLINE);
    const byType = await get('/v1/events?type=payment.authorized');
    expect(byType.json.data.map((e: Json) => e.event)).toEqual(['payment.authorized']);
    const byResource = await get(`/v1/events?resource_id=${approved}`);
    expect(byResource.json.data.map((e: Json) => e.data.transID)).toEqual([approved]);
    expect((await get('/v1/events?type=refund.failed')).json.data).toEqual([]);
  });

  it('filters by created[gte], created[gt], created[lte] and created[lt] in unix seconds', async () => {
    await pay(APPROVE); // at START_S
    sandbox.clock.advance(10_000);
    await pay(APPROVE); // at START_S + 10
    sandbox.clock.advance(10_000);
    await pay(APPROVE); // at START_S + 20
    const count = async (query: string) => (await get(`/v1/events?${query}`)).json.data.length;
    expect(await count(`created[gte]=${START_S + 10}`)).toBe(2);
    expect(await count(`created[gt]=${START_S + 10}`)).toBe(1);
    expect(await count(`created[lte]=${START_S + 10}`)).toBe(2);
    expect(await count(`created[lt]=${START_S + 10}`)).toBe(1);
    expect(await count(`created[gte]=${START_S + 5}&created[lte]=${START_S + 15}`)).toBe(1);
  });

  it('pages with limit and starting_after', async () => {
    for (let i = 0; i < 5; i++) {
      await pay(APPROVE);
      sandbox.clock.advance(1000);
    }
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const page = await get(`/v1/events?limit=2${cursor ? `&starting_after=${cursor}` : ''}`);
      seen.push(...page.json.data.map((e: Json) => e.id));
      if (!page.json.has_more) break;
      cursor = seen[seen.length - 1]!;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect(seen).toEqual((await get('/v1/events?limit=100')).json.data.map((e: Json) => e.id));
  });

  it.each([
    ['type=payment.authorised', 'parameter_invalid', 'type', 'is not an event name'],
    ['limit=0', 'parameter_invalid', 'limit', 'from 1 to 100'],
    ['limit=500', 'parameter_invalid', 'limit', 'from 1 to 100'],
    ['created[gte]=yesterday', 'parameter_invalid', 'created[gte]', 'unix seconds'],
    ['created=1', 'parameter_unknown', 'created', 'not a field'],
  ])('refuses ?%s with 400 %s on %s', async (query, code, param, message) => {
    const res = await get(`/v1/events?${query}`);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code, param });
    expect(res.json.error.message).toContain(message);
  });

  it('needs a valid API key', async () => {
    expect((await get('/v1/events', {})).status).toBe(401);
    expect((await get('/v1/events', { authorization: 'Bearer sk_live_abc' })).json.error.code).toBe('live_key_rejected');
  });
});

describe('GET /v1/events/{id}', () => {
  it('is the same envelope the registered endpoints received, plus object: "event"', async () => {
    await sandbox.request('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks', events: ['*'] }, AUTH);
    await pay(APPROVE);
    const [listed] = (await get('/v1/events')).json.data;
    const res = await get(`/v1/events/${listed.id}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual(listed);
    const delivery = sandbox.store.deliveries.list({ eventId: listed.id, limit: 10 }).find((d) => d.endpointId !== null)!;
    expect({ ...JSON.parse(delivery.body), object: 'event' }).toEqual(res.json);
  });

  it("answers another merchant's event exactly like a missing one", async () => {
    await pay(APPROVE, true);
    const [theirs] = (await get('/v1/events', OTHER)).json.data;
    const res = await get(`/v1/events/${theirs.id}`);
    const missing = await get('/v1/events/evt_0000000000000000');
    expect(res.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(withoutRequestId(res.json)).toEqual(
      withoutRequestId({
        ...missing.json,
        error: { ...missing.json.error, message: missing.json.error.message.replace('evt_0000000000000000', theirs.id) },
      }),
    );
    // A cursor of another merchant is a 404, exactly like an unknown one (as on payments and refunds).
    const foreignCursor = await get(`/v1/events?starting_after=${theirs.id}`);
    const unknownCursor = await get('/v1/events?starting_after=evt_unknown');
    expect([foreignCursor.status, unknownCursor.status]).toEqual([404, 404]);
    expect(foreignCursor.json.error).toMatchObject({ code: 'resource_missing', param: 'starting_after' });
    expect(foreignCursor.json.error.message.replace(theirs.id, 'X')).toBe(unknownCursor.json.error.message.replace('evt_unknown', 'X'));
  });
});
