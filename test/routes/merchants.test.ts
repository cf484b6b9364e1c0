// Merchants on demand: POST/GET /_sandbox/merchants, DELETE /_sandbox/merchants/{id}, the scoped
// reset, and the isolation of a created merchant from the seeded ones and from other created ones.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH, advance, createPayment } from '../helpers/payments-api.js';
import { csrfOf, seedObjects } from '../helpers/seed-objects.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildEncryptedData } from '../../src/crypto/s2s-cipher.js';
import { loadConfig } from '../../src/config.js';
import { buildSandbox } from '../../src/server/start-server.js';
import { silentLogger } from '../../src/runtime/logger.js';
import { openDatabase } from '../../src/store/open-database.js';
import type { Json } from '../helpers/json.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

/** Creates a merchant through the control API and returns its answer. */
async function newMerchant(body?: Record<string, unknown>) {
  const res = await sb.post('/_sandbox/merchants', body);
  expect(res.status, res.text).toBe(201);
  return res.json;
}

const bearer = (m: { api_key: string }) => ({ authorization: `Bearer ${m.api_key}` });
const who = (m: { api_key: string; terNO: number; public_key: string }) => ({ apiKey: m.api_key, terNO: m.terNO, publicKey: m.public_key });

/** Every table's rows, from the export. */
async function tables(): Promise<Record<string, { columns: string[]; rows: unknown[][] }>> {
  const all = (await sb.get('/_sandbox/export')).json.tables;
  // The request journal logs every request, these exports and the control requests that name no
  // merchant included (a scoped reset removes the merchant's own: test/routes/journal.test.ts).
  delete all.request_journal;
  return all;
}

/** The tables without the credential rows of `merchantId` (what deleting it must leave). */
function withoutCredentials(all: Awaited<ReturnType<typeof tables>>, merchantId: string) {
  const copy = structuredClone(all);
  copy.merchants!.rows = copy.merchants!.rows.filter((row) => row[0] !== merchantId);
  for (const table of ['terminals', 'api_keys']) {
    const at = copy[table]!.columns.indexOf('merchant_id');
    copy[table]!.rows = copy[table]!.rows.filter((row) => row[at] !== merchantId);
  }
  return copy;
}

/** One of everything for a merchant: the seeded objects, a chargeback, a settlement, a scenario entry, an idempotency key, a fault rule on its endpoint. */
async function everything(m: { id: string; api_key: string; terNO: number; public_key: string }) {
  const ids = await seedObjects(sb, who(m));
  expect((await sb.post('/_sandbox/chargebacks', { payment_id: ids.payment })).status).toBe(201);
  expect((await sb.post('/_sandbox/settlements', { merchant: m.id, pay_after: '1d' })).json.data).toHaveLength(1);
  expect(
    (
      await sb.post('/_sandbox/scenarios', {
        entries: [
          { merchant: m.id, outcome: 'decline:card_declined' },
          { terNO: m.terNO, outcome: 'approve' },
        ],
      })
    ).status,
  ).toBe(201);
  expect(
    (await sb.post('/v1/payments', { amount: 700, currency: 'EUR', token: ids.token }, { ...bearer(m), 'idempotency-key': `key-${m.id}` }))
      .status,
  ).toBe(200);
  expect((await sb.post('/_sandbox/faults', { spec: `endpoint=${ids.endpoint}:fail-first=1` })).status).toBe(201);
  return ids;
}

describe('POST /_sandbox/merchants', () => {
  it("answers 201 with a fresh merchant whose credentials have the seeded ones' formats and work at once", async () => {
    const m = await newMerchant();
    expect(m).toMatchObject({ object: 'merchant', seeded: false, currency: 'EUR', terNO: 9001, public_key: 'pk_test_9001' });
    expect(m.id).toMatch(/^mer_[A-Za-z0-9]+$/);
    expect(m.name).toBe('Merchant 9001');
    expect(m.private_key).toMatch(/^pv_test_[A-Za-z0-9]{32}$/);
    expect(m.api_key).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
    expect(m.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(m.terminals).toEqual([{ terNO: 9001, public_key: 'pk_test_9001', private_key: m.private_key }]);
    // Both families authenticate with the new credentials.
    expect(
      (await sb.post('/api/s2s', s2sBody({ terNO: m.terNO, public_key: m.public_key, ccno: '4242424242424242' }))).json.order_status,
    ).toBe('25');
    expect((await createPayment(sb, {}, bearer(m))).status).toBeDefined();
    // A second one gets the next terminal and other secrets.
    const second = await newMerchant({ name: 'Worker 2', currency: 'usd' });
    expect(second).toMatchObject({ name: 'Worker 2', currency: 'USD', terNO: 9002 });
    expect(second.api_key).not.toBe(m.api_key);
    expect(second.webhook_secret).not.toBe(m.webhook_secret);
  });

  it('takes terminals shaped like those of a fixtures file', async () => {
    const m = await newMerchant({
      terminals: [
        { terNO: 3003, public_key: 'pk_test_3003', private_key: 'pv_test_3003' },
        { terNO: 3004, public_key: 'pk_test_3004', private_key: 'pv_test_3004' },
      ],
    });
    expect(m).toMatchObject({ terNO: 3003, public_key: 'pk_test_3003', private_key: 'pv_test_3003' });
    expect(m.terminals).toHaveLength(2);
    expect((await sb.post('/api/s2s', s2sBody({ terNO: 3004, public_key: 'pk_test_3004', ccno: '4242424242424242' }))).status).toBe(200);
  });

  it.each([
    [{ currency: 'EURO' }, 400, 'currency', /ISO 4217/],
    [{ name: '' }, 400, 'name', /name/],
    [{ colour: 'red' }, 400, 'colour', /colour/],
    [{ terminals: [{ terNO: 0, public_key: 'pk_x_1', private_key: 'pv_x_1' }] }, 400, 'terminals.0.terNO', /terNO must be a whole number/],
    [{ terminals: [{ terNO: 3003, public_key: 'pk test', private_key: 'pv_x_1' }] }, 400, 'terminals.0.public_key', /public_key must be/],
    [
      { terminals: [{ terNO: 1001, public_key: 'pk_test_new', private_key: 'pv_test_new' }] },
      409,
      'terminals.0.terNO',
      /terNO 1001 already belongs/,
    ],
    [
      { terminals: [{ terNO: 3003, public_key: 'pk_test_2002', private_key: 'pv_test_new' }] },
      409,
      'terminals.0.public_key',
      /public_key pk_test_2002 already belongs/,
    ],
    [
      {
        terminals: [
          { terNO: 3003, public_key: 'pk_a_1', private_key: 'pv_a_1' },
          { terNO: 3003, public_key: 'pk_b_1', private_key: 'pv_b_1' },
        ],
      },
      409,
      'terminals.1.terNO',
      /terNO 3003/,
    ],
    // Public keys that end with one another: encrypted_data could not tell their terminals apart.
    [
      { terminals: [{ terNO: 3003, public_key: '1001', private_key: 'pv_x_1' }] },
      409,
      'terminals.0.public_key',
      /^public_key 1001 is the end of "pk_test_1001", the public_key of terminal 1001; public keys of different terminals may never end with one another/,
    ],
    [
      { terminals: [{ terNO: 3003, public_key: 'Apk_test_1001', private_key: 'pv_x_1' }] },
      409,
      'terminals.0.public_key',
      /^public_key Apk_test_1001 ends with "pk_test_1001", the public_key of terminal 1001;/,
    ],
    [
      {
        terminals: [
          { terNO: 3003, public_key: 'pk_a_3003', private_key: 'pv_a_1' },
          { terNO: 3004, public_key: 'Xpk_a_3003', private_key: 'pv_b_1' },
        ],
      },
      409,
      'terminals.1.public_key',
      /ends with "pk_a_3003", the public_key of terminals\.0;/,
    ],
  ])('refuses %j with %i naming %s, and creates nothing', async (body, status, param, message) => {
    const res = await sb.post('/_sandbox/merchants', body);
    expect(res.status, res.text).toBe(status);
    expect(res.json.error.param).toBe(param);
    expect(res.json.error.message).toMatch(message);
    expect((await sb.get('/_sandbox/merchants')).json.data).toHaveLength(2);
  });
});

describe('the terminal of a merchant created without "terminals"', () => {
  it('stays in the range the create takes after a terminal numbered 999999999', async () => {
    await newMerchant({ terminals: [{ terNO: 999_999_999, public_key: 'pk_test_top', private_key: 'pv_test_top' }] });
    expect((await newMerchant()).terNO).toBe(9001);
    expect((await newMerchant()).terNO).toBe(9002);
  });

  it("gets a random public key when pk_test_<terNO> would end with a key of someone's choosing", async () => {
    await newMerchant({ terminals: [{ terNO: 3003, public_key: 'test_9001', private_key: 'pv_test_3003' }] });
    const m = await newMerchant();
    expect(m.terNO).toBe(9001);
    expect(m.public_key).toMatch(/^pk_test_[A-Za-z0-9]{32}$/);
    expect((await sb.post('/api/s2s', s2sBody({ terNO: m.terNO, public_key: m.public_key, ccno: '4242424242424242' }))).status).toBe(200);
  });
});

describe('GET /_sandbox/merchants', () => {
  it('pages with limit and starting_after, in the order the merchants were made', async () => {
    const made = [await newMerchant(), await newMerchant(), await newMerchant()];
    const ids = ['mer_sandbox', 'mer_other', ...made.map((m) => m.id)];
    const first = await sb.get('/_sandbox/merchants?limit=2');
    expect(first.json).toMatchObject({ object: 'list', has_more: true });
    expect(first.json.data.map((m: Json) => m.id)).toEqual(ids.slice(0, 2));
    const second = await sb.get(`/_sandbox/merchants?limit=2&starting_after=${ids[1]}`);
    expect(second.json.data.map((m: Json) => m.id)).toEqual(ids.slice(2, 4));
    expect(second.json.has_more).toBe(true);
    const last = await sb.get(`/_sandbox/merchants?limit=2&starting_after=${ids[3]}`);
    expect(last.json).toMatchObject({
      has_more: false,
      data: [{ id: ids[4], terminals: [{ terNO: made[2].terNO }], api_keys: [made[2].api_key] }],
    });
    // Without a limit, a page of 50.
    expect((await sb.get('/_sandbox/merchants')).json.data).toHaveLength(5);
    expect((await sb.get('/_sandbox/merchants?starting_after=mer_nope')).json.error).toMatchObject({
      code: 'resource_missing',
      param: 'starting_after',
    });
    expect((await sb.get('/_sandbox/merchants?limit=0')).json.error).toMatchObject({ code: 'parameter_invalid', param: 'limit' });
    expect((await sb.get('/_sandbox/merchants?limit=1001')).json.error).toMatchObject({ code: 'parameter_invalid', param: 'limit' });
  });

  it('lists the seeded merchants, then the created ones, in the list envelope', async () => {
    const m = await newMerchant({ name: 'Worker 1' });
    const res = await sb.get('/_sandbox/merchants');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ object: 'list', has_more: false });
    expect(res.json.data.map((d: Json) => [d.id, d.seeded])).toEqual([
      ['mer_sandbox', true],
      ['mer_other', true],
      [m.id, false],
    ]);
    expect(res.json.data[0]).toMatchObject({
      terNO: 1001,
      public_key: 'pk_test_1001',
      private_key: 'pv_test_1001',
      api_key: 'sk_test_sandbox',
      webhook_secret: 'whsec_test_sandbox',
    });
    expect((await sb.get(`/_sandbox/merchants/${m.id}`)).json).toEqual(res.json.data[2]);
    expect((await sb.get('/_sandbox/merchants/mer_nope')).status).toBe(404);
  });
});

describe('isolation of created merchants', () => {
  it('gives each merchant its own references, lists, events and settlements', async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const seeded = { id: 'mer_sandbox', api_key: CREDS.apiKey, terNO: CREDS.terNO, public_key: CREDS.publicKey };
    // The same reference on every merchant's terminal: no 409, three transactions.
    const transactions = new Map<string, string>();
    for (const m of [seeded, a, b]) {
      const res = await sb.post(
        '/api/s2s',
        s2sBody({ terNO: m.terNO, public_key: m.public_key, reference: 'order-1', ccno: '4242424242424242' }),
      );
      expect(res.status, res.text).toBe(200);
      transactions.set(m.id, res.json.transID);
    }
    const payments = new Map<string, string>();
    for (const m of [seeded, a, b]) payments.set(m.id, (await createPayment(sb, { reference: 'order-1' }, bearer(m))).id);
    for (const m of [seeded, a, b]) {
      const list = (await sb.get('/v1/payments', bearer(m))).json.data.map((p: Json) => p.id);
      expect(list).toEqual([payments.get(m.id)]);
      const events = (await sb.get('/v1/events', bearer(m))).json.data;
      expect(events.length).toBeGreaterThan(0);
      const own = [payments.get(m.id), transactions.get(m.id)];
      expect(events.filter((e: Json) => !own.includes(e.data.payment_id ?? e.data.transID))).toEqual([]);
      // Another merchant's payment is a 404 for this one.
      const other = [...payments.entries()].find(([id]) => id !== m.id)![1];
      expect((await sb.get(`/v1/payments/${other}`, bearer(m))).status).toBe(404);
    }
    // Each merchant's own deliveries are signed with its own secret.
    for (const m of [a, b]) {
      const delivery = sb.db.prepare('SELECT * FROM deliveries WHERE merchant_id = ? LIMIT 1').get(m.id) as Json;
      expect(sb.services.webhookSecrets({ ...delivery, merchantId: delivery.merchant_id, endpointId: delivery.endpoint_id })).toEqual([
        m.webhook_secret,
      ]);
    }
    // Settling one merchant settles only its payments.
    const settled = (await sb.post('/_sandbox/settlements', { merchant: a.id, pay_after: '1d' })).json.data;
    expect(settled.map((s: Json) => [s.merchant_id, s.count])).toEqual([[a.id, 2]]);
    expect((await sb.get(`/_sandbox/settlements?merchant=${b.id}`)).json.data).toEqual([]);
  });

  it.each([
    ["a created merchant on the seeded merchant's objects", 'created', 'seeded'],
    ["the seeded merchant on a created merchant's objects", 'seeded', 'created'],
    ["one created merchant on another's objects", 'created', 'created2'],
  ])('%s: every object id is a 404, every terminal mix-up refused', async (_what, caller, owner) => {
    const a = await newMerchant();
    const b = await newMerchant();
    const seeded = { id: 'mer_sandbox', api_key: CREDS.apiKey, terNO: CREDS.terNO, public_key: CREDS.publicKey };
    const pick = { seeded, created: a, created2: b } as Record<string, typeof seeded>;
    const [me, them] = [pick[caller]!, pick[owner]!];
    const ids = await seedObjects(sb, who(them));
    const reads = [
      `/v1/payments/${ids.payment}`,
      `/v1/refunds/${ids.refund}`,
      `/v1/tokens/${ids.token}`,
      `/v1/checkout/sessions/${ids.session}`,
      `/v1/webhook_endpoints/${ids.endpoint}`,
      `/v1/events/${ids.event}`,
    ];
    for (const path of reads) {
      expect((await sb.get(path, bearer(them))).status, path).toBe(200);
      expect((await sb.get(path, bearer(me))).json.error?.code, path).toBe('resource_missing');
    }
    expect((await sb.post('/v1/refunds', { payment_id: ids.payment, amount: 1 }, bearer(me))).status).toBe(404);
    expect((await sb.post(`/v1/payments/${ids.authorized}/capture`, {}, bearer(me))).status).toBe(404);
    // /api/: a refund with my public_key on their transaction, and my terNO with their public_key.
    expect(
      (await sb.post('/api/transactions/refund-request', { transID: ids.transApproved, refundAmount: '1.00', public_key: me.public_key }))
        .status,
    ).toBe(404);
    expect((await sb.post('/api/s2s', s2sBody({ terNO: me.terNO, public_key: them.public_key }))).status).toBe(401);
    for (const path of ['/v1/payments', '/v1/refunds', '/v1/events', '/v1/webhook_endpoints'])
      expect((await sb.get(path, bearer(me))).json.data, path).toEqual([]);
  });

  it('lets a scenario entry scoped to one merchant decide only its payments', async () => {
    const a = await newMerchant();
    expect(
      (await sb.post('/_sandbox/scenarios', { entries: [{ merchant: a.id, outcome: 'decline:card_declined', times: 5 }] })).status,
    ).toBe(201);
    expect((await createPayment(sb)).status).toBe('authorized');
    expect((await createPayment(sb, {}, bearer(a))).status).toBe('declined');
    const s2s = await sb.post('/api/s2s', s2sBody({ terNO: a.terNO, public_key: a.public_key, ccno: '4242424242424242' }));
    expect(s2s.json.order_status).toBe('24');
    expect((await sb.get('/_sandbox/scenarios')).json.data[0]).toMatchObject({ merchant: a.id, used: 2 });
    const unknown = await sb.post('/_sandbox/scenarios', { entries: [{ merchant: 'mer_nope', outcome: 'decline:card_declined' }] });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.param).toBe('entries.0.merchant');
  });

  it("makes the objects of event triggers in the merchant's currency", async () => {
    const a = await newMerchant({ currency: 'USD' });
    const res = await sb.post('/_sandbox/events/trigger', { type: 'payment.captured', merchant: a.id });
    expect(res.status, res.text).toBe(201);
    expect((await sb.get(`/v1/payments/${res.json.related.payment_id}`, bearer(a))).json.currency).toBe('USD');
  });
});

describe('POST /_sandbox/reset {"merchant"}', () => {
  it("empties one merchant's state and leaves the others exactly as they were", async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    await seedObjects(sb);
    await seedObjects(sb, who(b));
    const before = await tables();
    await everything(a);
    const res = await sb.post('/_sandbox/reset', { merchant: a.id });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ reset: true, merchant: a.id });
    expect(res.json.removed.payments).toBeGreaterThan(0);
    expect(await tables()).toEqual(before);
    // The merchant stays and works.
    expect((await createPayment(sb, {}, bearer(a))).status).toBe('authorized');
  });

  it('resets a seeded merchant too, and keeps it', async () => {
    await seedObjects(sb);
    const res = await sb.post('/_sandbox/reset', { merchant: 'mer_sandbox' });
    expect(res.status).toBe(200);
    expect(sb.store.merchantRows.count('mer_sandbox')).toEqual({ merchants: 1, terminals: 1, api_keys: 1 });
    expect((await createPayment(sb)).status).toBe('authorized');
  });

  it("leaves no job behind for its pending /v1/ payments (the chargeback card, the slow SEPA IBAN), and keeps another merchant's", async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const chargeback = await createPayment(sb, { token: 'tok_chargeback' }, bearer(a));
    const session = (
      await sb.post(
        '/v1/checkout/sessions',
        { amount: 2500, currency: 'EUR', methods: ['sepa'], return_url: 'https://shop.example/return' },
        bearer(a),
      )
    ).json;
    const token = new URL(session.url).pathname.split('/').pop()!;
    const submitted = await sb.postForm(`/pay/${token}/sepa`, {
      csrf: await csrfOf(sb, `/pay/${token}`),
      iban: 'AT32 1904 3002 3547 3204',
      holder: 'Jane Doe',
    });
    expect(submitted.status, submitted.text).toBe(303);
    const sepa = (await sb.get(`/v1/checkout/sessions/${session.id}`, bearer(a))).json.payment_id;
    const theirs = await createPayment(sb, { token: 'tok_chargeback' }, bearer(b));
    const pending = () => sb.db.prepare('SELECT kind, subject_id AS subject FROM jobs WHERE done = 0 ORDER BY kind, subject_id').all();
    expect(pending()).toEqual(
      expect.arrayContaining([
        { kind: 'chargeback.open', subject: chargeback.id },
        { kind: 'checkout.sepa_settle', subject: sepa },
        { kind: 'chargeback.open', subject: theirs.id },
      ]),
    );
    expect((await sb.post('/_sandbox/reset', { merchant: a.id })).status).toBe(200);
    expect(pending()).toEqual([{ kind: 'chargeback.open', subject: theirs.id }]);
    // Their time comes and goes: only the other merchant's chargeback opens, and nothing of a's comes back.
    advance(sb, 3 * 60_000);
    expect((await sb.get('/_sandbox/chargebacks')).json.data.map((c: Json) => c.payment_id)).toEqual([theirs.id]);
    expect(sb.store.merchantRows.count(a.id)).toEqual({ merchants: 1, terminals: 1, api_keys: 1 });
  });

  it('answers 404 for an unknown merchant and 400 for a field it does not take', async () => {
    expect((await sb.post('/_sandbox/reset', { merchant: 'mer_nope' })).json.error).toMatchObject({
      code: 'resource_missing',
      param: 'id',
    });
    expect((await sb.post('/_sandbox/reset', { merchants: 'mer_sandbox' })).json.error).toMatchObject({ code: 'parameter_unknown' });
  });
});

describe('DELETE /_sandbox/merchants/{id}', () => {
  it('deletes a created merchant and every row it owns, and nothing else', async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    await seedObjects(sb);
    await seedObjects(sb, who(b));
    const before = withoutCredentials(await tables(), a.id);
    await everything(a);
    const res = await sb.request('DELETE', `/_sandbox/merchants/${a.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: a.id, deleted: true, removed: { merchants: 1, terminals: 1, api_keys: 1 } });
    expect(await tables()).toEqual(before);
    // Checked in the database by its own columns too.
    for (const table of (sb.db.pragma('table_list') as Array<{ name: string }>).map((t) => t.name)) {
      const columns = (sb.db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>).map((c) => c.name);
      if (columns.includes('merchant_id'))
        expect(sb.db.prepare(`SELECT COUNT(*) FROM "${table}" WHERE merchant_id = ?`).pluck().get(a.id), table).toBe(0);
    }
    expect(sb.services.faults.list().rules).toEqual([]);
    // Its credentials no longer authenticate; the others still do.
    expect((await sb.get('/v1/payments', bearer(a))).status).toBe(401);
    expect((await sb.post('/api/s2s', s2sBody({ terNO: a.terNO, public_key: a.public_key }))).status).toBe(401);
    expect((await sb.get('/v1/payments', bearer(b))).json.data).toHaveLength(2);
    expect((await sb.get(`/_sandbox/merchants/${a.id}`)).status).toBe(404);
  });

  it('deletes its merchant= fault rules with it; a scoped reset keeps them', async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    for (const m of [a, b]) expect((await sb.post('/_sandbox/faults', { spec: `merchant=${m.id}:latency=1s` })).status).toBe(201);
    const listed = async () => (await sb.get('/_sandbox/faults')).json.data.map((r: Json) => r.merchant);
    expect((await sb.post('/_sandbox/reset', { merchant: a.id })).status).toBe(200);
    expect(await listed()).toEqual([a.id, b.id]);
    const res = await sb.request('DELETE', `/_sandbox/merchants/${a.id}`);
    expect(res.json.removed).toMatchObject({ fault_rules: 1 });
    expect(await listed()).toEqual([b.id]);
    expect(sb.db.prepare('SELECT merchant FROM fault_rules').pluck().all()).toEqual([b.id]);
    // Setting it again names a merchant there is no more.
    expect((await sb.post('/_sandbox/faults', { spec: `merchant=${a.id}:latency=1s` })).status).toBe(404);
  });

  it('refuses a seeded merchant with a 409 that says why and what to do instead', async () => {
    const res = await sb.request('DELETE', '/_sandbox/merchants/mer_sandbox');
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: 'merchant_seeded', param: 'id' });
    expect(res.json.error.message).toMatch(/seeded from the fixtures.*POST \/_sandbox\/reset \{"merchant": "mer_sandbox"\}/);
    expect((await sb.get('/_sandbox/merchants')).json.data).toHaveLength(2);
  });

  it('answers 404 for an unknown merchant', async () => {
    expect((await sb.request('DELETE', '/_sandbox/merchants/mer_nope')).status).toBe(404);
  });
});

describe('public keys that end with one another', () => {
  it('an encrypted request speaks for the terminal it is decrypted with, for merchant= faults and idempotency alike, even among keys an older sandbox stored', async () => {
    const a = await newMerchant();
    // As a sandbox before the refusal let POST /_sandbox/merchants store it: terminal 500 with public key 1001.
    sb.db.prepare("INSERT INTO terminals (ter_no, merchant_id, public_key, private_key) VALUES (500, ?, '1001', 'pv_test_500')").run(a.id);
    sb.store.credentials.forget();
    expect((await sb.post('/_sandbox/faults', { spec: `merchant=${a.id}:status=503` })).status).toBe(201);
    const query = new URLSearchParams({
      ...(s2sBody({ ccno: '4242424242424242', reference: 'enc-1' }) as Record<string, string>),
      encryption_method: 'aes256',
    }).toString();
    const encrypted = buildEncryptedData(query, { publicKey: CREDS.publicKey, privateKey: CREDS.privateKey });
    const headers = { 'idempotency-key': 'enc-key-1' };
    const res = await sb.postForm('/api/s2s/encrypt', { encrypted_data: encrypted }, headers);
    expect(res.status, res.text).toBe(200);
    expect(sb.db.prepare("SELECT scope FROM idempotency_keys WHERE key = 'enc-key-1'").pluck().all()).toEqual(['mer_sandbox']);
  });

  it('an import whose terminals clash is refused with a 400 naming the row, and changes nothing', async () => {
    const a = await newMerchant();
    const snapshot = (await sb.get('/_sandbox/export')).json;
    const terminals = snapshot.tables.terminals;
    const row = terminals.rows.findIndex((r: unknown[]) => r[terminals.columns.indexOf('ter_no')] === a.terNO);
    terminals.rows[row][terminals.columns.indexOf('public_key')] = 'Xpk_test_1001';
    const res = await sb.post('/_sandbox/import', snapshot);
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: `tables.terminals.rows.${row}` });
    expect(res.json.error.message).toMatch(
      /the public_key "Xpk_test_1001" of terminal 9001 ends with "pk_test_1001", the public_key of terminal 1001; public keys of different terminals may never end with one another/,
    );
    expect((await sb.get(`/_sandbox/merchants/${a.id}`)).json.public_key).toBe('pk_test_9001');
  });

  it("a fixtures terminal whose public key clashes with a stored terminal's stops the start, naming both", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paysandbox-fixtures-'));
    try {
      const db = join(dir, 'sandbox.db');
      const first = buildSandbox(loadConfig({ db }, {}), { logger: silentLogger });
      first.services.merchants.create({ terminals: [{ terNO: 3003, public_key: 'pk_live_3003', private_key: 'pv_test_3003' }] });
      first.db.close();
      const fixtures = join(dir, 'fixtures.json');
      writeFileSync(
        fixtures,
        JSON.stringify({
          merchants: [
            {
              id: 'mer_sandbox',
              name: 'Sandbox Merchant',
              webhook_secret: 'whsec_test_sandbox',
              api_keys: ['sk_test_sandbox'],
              terminals: [{ terNO: 1001, public_key: 'e_3003', private_key: 'pv_test_1001' }],
            },
          ],
        }),
      );
      expect(() => buildSandbox(loadConfig({ db, fixtures }, {}), { logger: silentLogger })).toThrow(
        'the fixtures terminal 1001 has public_key "e_3003", which is the end of "pk_live_3003", the public_key of terminal 3003 (merchant mer_',
      );
      // Nothing was written.
      const after = openDatabase(db);
      expect(after.prepare('SELECT public_key FROM terminals WHERE ter_no = 1001').pluck().get()).toBe('pk_test_1001');
      after.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('full reset, export and import', () => {
  it('a full reset drops the created merchants and restores exactly the seeded ones', async () => {
    const a = await newMerchant();
    await createPayment(sb, {}, bearer(a));
    expect((await sb.post('/_sandbox/reset')).status).toBe(200);
    expect((await sb.get('/_sandbox/merchants')).json.data.map((m: Json) => m.id)).toEqual(['mer_sandbox', 'mer_other']);
    expect((await sb.get('/v1/payments', bearer(a))).status).toBe(401);
    expect((await sb.get('/v1/payments', AUTH)).status).toBe(200);
  });

  it('a snapshot carries the created merchants: after reset and import they authenticate and own their objects', async () => {
    const a = await newMerchant({ name: 'Kept', currency: 'GBP' });
    const payment = await createPayment(sb, {}, bearer(a));
    const snapshot = (await sb.get('/_sandbox/export')).json;
    await sb.post('/_sandbox/reset');
    expect((await sb.post('/_sandbox/import', snapshot)).status).toBe(200);
    expect((await sb.get(`/_sandbox/merchants/${a.id}`)).json).toEqual(a);
    expect((await sb.get('/v1/payments', bearer(a))).json.data.map((p: Json) => p.id)).toEqual([payment.id]);
    // Still a created merchant: deletable.
    expect((await sb.request('DELETE', `/_sandbox/merchants/${a.id}`)).status).toBe(200);
  });
});

describe('the dashboard', () => {
  it("lists created merchants in its Merchant filter and shows only the chosen merchant's rows", async () => {
    const a = await newMerchant({ name: 'Worker 7' });
    const mine = await createPayment(sb, {}, bearer(a));
    const seeded = await createPayment(sb);
    const page = await sb.get(`/_sandbox/?tab=payments&merchant=${a.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<option value="${a.id}" selected="">Worker 7 (${a.id})</option>`);
    expect(page.text).toContain(mine.id);
    expect(page.text).not.toContain(seeded.id);
    expect((await sb.get('/_sandbox/?tab=payments')).text).toContain(seeded.id);
    const bad = await sb.get('/_sandbox/?tab=payments&merchant=mer_nope');
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe('merchant');
  });
});
