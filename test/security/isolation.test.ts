// The isolation matrix: every route that takes an object id or a credential, called with the
// other merchant's credential on sk_test_sandbox's (terminal 1001's) objects. /v1/ answers a 404
// whose body equals the one a missing id gets (apart from request_id and the id itself), and the
// object is unchanged; /api/ refund-request with pk_test_2002 on a 1001 transaction is that 404
// too; S2S with terNO 1001 and pk_test_2002 is a 401. Lists never show the other's objects.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildEncryptedData } from '../../src/crypto/s2s-cipher.js';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { dbFingerprint } from '../fuzz/fuzz-kit.js';
import { seedObjects, type SeededObjects } from '../helpers/seed-objects.js';
import { AUTH as OWNER, OTHER } from '../helpers/payments-api.js';

/** Ids of the right shape that name nothing. */
const MISSING: SeededObjects = {
  transApproved: 'T000000000000',
  transPending: 'T000000000001',
  challengeToken: 'missing-challenge',
  payment: 'pay_0000000000000000',
  authorized: 'pay_0000000000000001',
  token: 'tok_0000000000000000',
  refund: 'rfd_0000000000000000',
  endpoint: 'we_0000000000000000',
  session: 'cs_0000000000000000',
  sessionToken: 'missing-session',
  event: 'evt_0000000000000000',
  delivery: 'dlv_0000000000000000',
};

type Call = [method: string, path: string, body?: unknown];

/** Every /v1/ route that names an object, built from a set of ids. */
const V1: Array<[string, (id: SeededObjects) => Call]> = [
  ['GET /v1/payments/{id}', (id) => ['GET', `/v1/payments/${id.payment}`]],
  ['POST /v1/payments/{id}/capture', (id) => ['POST', `/v1/payments/${id.authorized}/capture`, {}]],
  ['POST /v1/payments/{id}/cancel', (id) => ['POST', `/v1/payments/${id.authorized}/cancel`, {}]],
  ['GET /v1/payments?starting_after', (id) => ['GET', `/v1/payments?starting_after=${id.payment}`]],
  ['POST /v1/payments with a token', (id) => ['POST', '/v1/payments', { amount: 100, currency: 'EUR', token: id.token }]],
  ['POST /v1/refunds', (id) => ['POST', '/v1/refunds', { payment_id: id.payment, amount: 1 }]],
  ['GET /v1/refunds/{id}', (id) => ['GET', `/v1/refunds/${id.refund}`]],
  ['GET /v1/refunds?payment_id', (id) => ['GET', `/v1/refunds?payment_id=${id.payment}`]],
  ['GET /v1/refunds?starting_after', (id) => ['GET', `/v1/refunds?starting_after=${id.refund}`]],
  ['GET /v1/webhook_endpoints?starting_after', (id) => ['GET', `/v1/webhook_endpoints?starting_after=${id.endpoint}`]],
  ['GET /v1/tokens/{id}', (id) => ['GET', `/v1/tokens/${id.token}`]],
  ['GET /v1/checkout/sessions/{id}', (id) => ['GET', `/v1/checkout/sessions/${id.session}`]],
  ['POST /v1/checkout/sessions/{id}/expire', (id) => ['POST', `/v1/checkout/sessions/${id.session}/expire`, {}]],
  ['GET /v1/webhook_endpoints/{id}', (id) => ['GET', `/v1/webhook_endpoints/${id.endpoint}`]],
  ['POST /v1/webhook_endpoints/{id}', (id) => ['POST', `/v1/webhook_endpoints/${id.endpoint}`, { description: 'taken over' }]],
  ['PATCH /v1/webhook_endpoints/{id}', (id) => ['PATCH', `/v1/webhook_endpoints/${id.endpoint}`, { enabled: false }]],
  ['DELETE /v1/webhook_endpoints/{id}', (id) => ['DELETE', `/v1/webhook_endpoints/${id.endpoint}`]],
  ['POST /v1/webhook_endpoints/{id}/rotate_secret', (id) => ['POST', `/v1/webhook_endpoints/${id.endpoint}/rotate_secret`, {}]],
  ['GET /v1/events/{id}', (id) => ['GET', `/v1/events/${id.event}`]],
  ['GET /v1/events?starting_after', (id) => ['GET', `/v1/events?starting_after=${id.event}`]],
];

/** The JSON error body without request_id, with the other merchant's ids swapped for the missing ones. */
function comparable(text: string, ids: SeededObjects): unknown {
  const body = JSON.parse(text);
  delete body.error.request_id;
  for (const key of Object.keys(MISSING) as Array<keyof SeededObjects>)
    body.error.message = body.error.message.replaceAll(ids[key], MISSING[key]);
  return body;
}

let sb: TestSandbox;
let ids: SeededObjects;

beforeEach(async () => {
  sb = createTestSandbox();
  ids = await seedObjects(sb);
});
afterEach(() => sb.close());

describe('sk_test_other on sk_test_sandbox objects (every /v1/ route)', () => {
  it.each(V1)('%s: 404 identical to a missing id, nothing changed', async (_name, build) => {
    const before = dbFingerprint(sb);
    const [method, path, body] = build(ids);
    const foreign = await sb.request(method, path, body, OTHER);
    const [mMethod, mPath, mBody] = build(MISSING);
    const missing = await sb.request(mMethod, mPath, mBody, OTHER);
    const [status, code] = [404, 'resource_missing'];
    expect(foreign.status, foreign.text).toBe(status);
    expect(missing.status, missing.text).toBe(status);
    expect(foreign.json.error.code).toBe(code);
    expect(comparable(foreign.text, ids)).toEqual(comparable(missing.text, ids));
    expect(dbFingerprint(sb)).toEqual(before);
  });

  it('the owner reaches every object the matrix aims at (the 404s are about the key)', async () => {
    for (const [name, build] of V1) {
      if (
        name.startsWith('DELETE') ||
        name.includes('expire') ||
        name.includes('cancel') ||
        name.includes('capture') ||
        name.includes('rotate')
      )
        continue;
      const [method, path, body] = build(ids);
      const res = await sb.request(method, path, body, OWNER);
      expect(res.status, `${name}: ${res.text}`).toBeLessThan(300);
    }
  });

  it.each(['/v1/payments', '/v1/refunds', '/v1/events', '/v1/webhook_endpoints'])(
    "GET %s lists none of the other merchant's objects",
    async (path) => {
      const own = await sb.request('GET', path, undefined, OWNER);
      expect(own.json.data.length).toBeGreaterThan(0);
      const other = await sb.request('GET', path, undefined, OTHER);
      expect(other.status).toBe(200);
      const mine = new Set(own.json.data.map((o: { id: string }) => o.id));
      for (const o of other.json.data as Array<{ id: string }>) expect(mine.has(o.id)).toBe(false);
    },
  );
});

describe('terminal credentials of the /api/ family', () => {
  it('refund-request with pk_test_2002 on a 1001 transaction is a 404 identical to a missing transID', async () => {
    const before = dbFingerprint(sb);
    const foreign = await sb.request('POST', '/api/transactions/refund-request', {
      transID: ids.transApproved,
      refundAmount: '1.00',
      public_key: CREDS.other.publicKey,
    });
    const missing = await sb.request('POST', '/api/transactions/refund-request', {
      transID: MISSING.transApproved,
      refundAmount: '1.00',
      public_key: CREDS.other.publicKey,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe('resource_missing');
    expect(comparable(foreign.text, { ...MISSING, transApproved: ids.transApproved })).toEqual(comparable(missing.text, MISSING));
    expect(dbFingerprint(sb)).toEqual(before);
    const own = await sb.request('POST', '/api/transactions/refund-request', {
      transID: ids.transApproved,
      refundAmount: '1.00',
      public_key: CREDS.publicKey,
    });
    expect(own.status, own.text).toBe(200);
  });

  it('S2S with terNO 1001 and pk_test_2002 is a 401 that creates nothing', async () => {
    const before = dbFingerprint(sb);
    const res = await sb.request('POST', '/api/s2s', s2sBody({ terNO: CREDS.terNO, public_key: CREDS.other.publicKey }));
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('invalid_credentials');
    expect(dbFingerprint(sb)).toEqual(before);
  });

  it("encrypted S2S sealed with 2002's public key but 1001's private key does not decrypt", async () => {
    const plain = new URLSearchParams({
      ...(s2sBody({ terNO: '1001', public_key: CREDS.publicKey }) as Record<string, string>),
      encryption_method: 'none',
    }).toString();
    const data = buildEncryptedData(plain, { privateKey: CREDS.privateKey, publicKey: CREDS.other.publicKey });
    const before = dbFingerprint(sb);
    const res = await sb.request('POST', '/api/s2s/encrypt', `encrypted_data=${encodeURIComponent(data)}`, {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('decryption_failed');
    expect(dbFingerprint(sb)).toEqual(before);
  });

  it('encrypted S2S for terminal 2002 naming terNO 1001 inside is a 401', async () => {
    const plain = new URLSearchParams({
      ...(s2sBody({ terNO: '1001', public_key: CREDS.other.publicKey }) as Record<string, string>),
      encryption_method: 'none',
    }).toString();
    const data = buildEncryptedData(plain, { privateKey: CREDS.other.privateKey, publicKey: CREDS.other.publicKey });
    const res = await sb.request('POST', '/api/s2s/encrypt', `encrypted_data=${encodeURIComponent(data)}`, {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('invalid_credentials');
  });
});
