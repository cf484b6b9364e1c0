// POST /api/transactions/refund-request: the spec §2.4 answer, full / partial / several refunds,
// what is left, ownership (404 revealing nothing), refundable states, the completion job with its
// webhooks (refund.succeeded, and refund.failed for 4000000000005126), and a race of 20
// concurrent partial refunds on a real server whose accepted sum never exceeds the amount.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/signatures/signing.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const SPEC_2_4 = ['bill_amt', 'bill_currency', 'message', 'order_status', 'reference', 'response', 'status', 'tdate', 'transID'];

describe('refund requests (in-process)', () => {
  let sb: TestSandbox;
  beforeEach(() => {
    sb = createTestSandbox();
  });
  afterEach(() => sb.close());

  /** An approved (frictionless) payment; returns its transID. */
  async function approved(overrides: Record<string, unknown> = {}): Promise<string> {
    const res = await sb.request('POST', '/api/s2s', s2sBody({ ccno: '4242424242424242', ...overrides }));
    expect(res.json.status).toBe('Test Approved');
    return res.json.transID;
  }

  function refund(transID: unknown, refundAmount: unknown, publicKey: string = CREDS.publicKey) {
    return sb.request('POST', '/api/transactions/refund-request', { transID, refundAmount, public_key: publicKey });
  }

  /** Moves sandbox time past the refund completion and runs the due jobs. */
  async function completeRefunds() {
    const res = await sb.request('POST', '/_sandbox/clock/advance', { duration: '2s' });
    expect(res.status).toBe(200);
  }

  const transaction = async (transID: string) => (await sb.request('GET', `/_sandbox/transactions/${transID}`)).json;
  const webhookFields = (type: string) =>
    sb.store.deliveries.list({ eventType: type, limit: 50 }).map((d) => Object.fromEntries(new URLSearchParams(d.body)));

  it('answers exactly the spec §2.4 fields, then refunds in full after the job: Refunded (5) and refund.succeeded', async () => {
    const transID = await approved({ reference: 'rf_full' });
    const res = await refund(transID, '10.50');
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(SPEC_2_4);
    expect(res.json).toMatchObject({
      order_status: '8',
      status: 'Request Processed',
      bill_amt: 10.5,
      transID,
      bill_currency: 'EUR',
      reference: 'rf_full',
    });
    expect(res.json.tdate).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(res.json.message).toContain('0.00 EUR is left');

    // Until the job runs the refund is pending and the transaction unchanged.
    expect((await transaction(transID)).status).toBe('Test Approved');
    await completeRefunds();
    expect(await transaction(transID)).toMatchObject({ order_status: '5', status: 'Refunded', refunded_amt: '10.50' });
    const [hook] = webhookFields('refund.succeeded');
    expect(hook).toMatchObject({ transID, order_status: '5', status: 'Refunded', bill_amt: '10.50', reference: 'rf_full', mop: 'VISA' });
    expect(hook!.response).toContain('10.50 EUR of 10.50 EUR refunded');
  });

  it('partial, then the rest: Partially Refunded (6), then Refunded (5)', async () => {
    const transID = await approved();
    expect((await refund(transID, 4)).json.bill_amt).toBe(4);
    await completeRefunds();
    expect(await transaction(transID)).toMatchObject({ order_status: '6', status: 'Partially Refunded', refunded_amt: '4.00' });
    expect((await refund(transID, '6.50')).status).toBe(200);
    await completeRefunds();
    expect(await transaction(transID)).toMatchObject({ order_status: '5', refunded_amt: '10.50' });
    expect(
      webhookFields('refund.succeeded')
        .map((h) => h.order_status)
        .sort(),
    ).toEqual(['5', '6']);
  });

  it('several refunds before any completes: pending ones count, and the next one is a 422 saying what is left', async () => {
    const transID = await approved();
    for (const amount of ['3.50', '3.50', '3.00']) expect((await refund(transID, amount)).status).toBe(200);
    const over = await refund(transID, '0.51');
    expect(over.status).toBe(422);
    expect(over.json.error).toMatchObject({ code: 'amount_too_large', param: 'refundAmount' });
    expect(over.json.error.message).toContain('0.50 EUR of 10.50 EUR is left');
    expect((await refund(transID, '0.50')).status).toBe(200);
  });

  it('over-refund of a partially refunded payment: 422 with the amount left', async () => {
    const transID = await approved();
    await refund(transID, '4.00');
    await completeRefunds();
    const res = await refund(transID, '7.00');
    expect(res.status).toBe(422);
    expect(res.json.error.message).toMatch(/more than is left to refund: 6\.50 EUR of 10\.50 EUR is left.*send at most 6\.50/);
  });

  it("another terminal's transaction is a 404 exactly like a missing one", async () => {
    const transID = await approved();
    const foreign = await refund(transID, '1.00', CREDS.other.publicKey);
    const missing = await refund('999999999999999', '1.00', CREDS.other.publicKey);
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.json.error.code).toBe('resource_missing');
    expect(foreign.json.error.message.replace(transID, 'ID')).toBe(missing.json.error.message.replace('999999999999999', 'ID'));
    expect((await transaction(transID)).status).toBe('Test Approved');
  });

  it('an unknown public_key is a 401', async () => {
    const res = await refund(await approved(), '1.00', 'pk_nobody');
    expect(res.status).toBe(401);
    expect(res.json.error).toMatchObject({ code: 'invalid_credentials', param: 'public_key' });
  });

  it('a pending or declined transaction cannot be refunded (422 naming its status)', async () => {
    const pending = (await sb.request('POST', '/api/s2s', s2sBody({ ccno: '4000000000003220' }))).json.transID;
    const declined = (await sb.request('POST', '/api/s2s', s2sBody({ ccno: '4000000000000002' }))).json.transID;
    const a = await refund(pending, '1.00');
    expect(a.status).toBe(422);
    expect(a.json.error).toMatchObject({ code: 'not_refundable', param: 'transID' });
    expect(a.json.error.message).toMatch(/is Pending \(order_status 0\); only Test Approved \(25\) or Partially Refunded \(6\)/);
    expect((await refund(declined, '1.00')).json.error.message).toContain('is Test Declined');
  });

  it('a charged-back transaction cannot be refunded: 422 naming Chargeback, and nothing is queued', async () => {
    const transID = await approved();
    expect((await sb.request('POST', '/_sandbox/chargebacks', { transID })).status).toBe(201);
    expect((await transaction(transID)).status).toBe('Chargeback');
    const refunds = () => sb.db.prepare('SELECT COUNT(*) FROM s2s_refunds').pluck().get();
    const before = refunds();
    const res = await refund(transID, '1.00');
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({
      code: 'not_refundable',
      param: 'transID',
      message: expect.stringMatching(/is Chargeback \(order_status 11\); only Test Approved \(25\) or Partially Refunded \(6\)/),
    });
    expect(refunds()).toBe(before);
    await completeRefunds();
    expect(await transaction(transID)).toMatchObject({ status: 'Chargeback', refunded_amt: '0.00' });
  });

  it('a fully refunded transaction cannot be refunded again', async () => {
    const transID = await approved();
    await refund(transID, '10.50');
    await completeRefunds();
    const res = await refund(transID, '0.01');
    expect(res.status).toBe(422);
    expect(res.json.error.message).toContain('is Refunded');
  });

  const invalid: Array<[string, Record<string, unknown>, string, string]> = [
    ['zero', { refundAmount: '0.00' }, 'refundAmount', 'parameter_invalid'],
    ['negative', { refundAmount: -1 }, 'refundAmount', 'parameter_invalid'],
    ['three decimals', { refundAmount: '1.234' }, 'refundAmount', 'parameter_invalid'],
    ['a float with noise', { refundAmount: 0.1 + 0.2 }, 'refundAmount', 'parameter_invalid'],
    ['not a number', { refundAmount: 'ten' }, 'refundAmount', 'parameter_invalid'],
    ['too large', { refundAmount: '100000000.00' }, 'refundAmount', 'parameter_invalid'],
    ['missing refundAmount', { refundAmount: undefined }, 'refundAmount', 'parameter_missing'],
    ['missing transID', { transID: undefined }, 'transID', 'parameter_missing'],
    ['missing public_key', { public_key: undefined }, 'public_key', 'parameter_missing'],
  ];
  for (const [what, patch, param, code] of invalid) {
    it(`400 when ${what}`, async () => {
      const transID = await approved();
      const body = { transID, refundAmount: '1.00', public_key: CREDS.publicKey, ...patch };
      const res = await sb.request('POST', '/api/transactions/refund-request', body);
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code, param });
      expect(res.json.error.message).toContain(param);
    });
  }

  it('400 for decimals the currency does not have, and for a body that is not JSON', async () => {
    const transID = await approved({ bill_amt: '1000', bill_currency: 'JPY' });
    const res = await refund(transID, '10.50');
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain('more decimals than JPY allows');
    expect((await refund(transID, 500)).json.bill_amt).toBe(500);
    const form = await sb.request('POST', '/api/transactions/refund-request', 'transID=1', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(400);
    expect(form.json.error.code).toBe('unsupported_content_type');
  });

  it('refunds of an aes256 payment send an encrypted webhook too', async () => {
    const { buildEncryptedData, decryptWebhookData } = await import('../../src/crypto/s2s-cipher.js');
    const keys = { publicKey: CREDS.publicKey, privateKey: CREDS.privateKey };
    const query = new URLSearchParams({
      ...(s2sBody({ ccno: '4242424242424242' }) as Record<string, string>),
      terNO: '1001',
      encryption_method: 'aes256',
    }).toString();
    const created = await sb.request(
      'POST',
      '/api/s2s/encrypt',
      new URLSearchParams({ encrypted_data: buildEncryptedData(query, keys) }).toString(),
      {
        'content-type': 'application/x-www-form-urlencoded',
      },
    );
    await refund(created.json.transID, '1.00');
    await completeRefunds();
    const [hook] = webhookFields('refund.succeeded');
    expect(Object.fromEntries(new URLSearchParams(decryptWebhookData(hook!.data!, keys)))).toMatchObject({
      transID: created.json.transID,
      order_status: '6',
    });
  });
});

describe('refund requests (real server)', () => {
  const env = useSandboxWithMerchant({ flags: { retry: 'none' } });

  async function approvedPayment(ccno: string, path: string): Promise<string> {
    const res = await env.http.post('/api/s2s', s2sBody({ ccno, webhook_url: env.merchant.url + path }));
    expect(res.json.status).toBe('Test Approved');
    return res.json.transID;
  }

  it('20 concurrent partial refunds of 1.00 on 10.50: exactly 10 accepted, never more than the amount', async () => {
    const transID = await approvedPayment('4242424242424242', '/race');
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        env.http.post('/api/transactions/refund-request', { transID, refundAmount: '1.00', public_key: CREDS.publicKey }),
      ),
    );
    const accepted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    const acceptedSum = accepted.reduce((sum, a) => sum + Math.round(a.json.bill_amt * 100), 0);
    expect(acceptedSum).toBeLessThanOrEqual(1050);
    expect(accepted).toHaveLength(10);
    expect(refused.every((a) => a.status === 422 && a.json.error.message.includes('0.50 EUR of 10.50 EUR is left'))).toBe(true);

    await env.http.post('/_sandbox/clock/advance', { duration: '2s' });
    const after = (await env.http.get(`/_sandbox/transactions/${transID}`)).json;
    expect(after).toMatchObject({ status: 'Partially Refunded', refunded_amt: '10.00' });
  });

  it('card 4000000000005126: the refund is accepted, then fails with a signed refund.failed webhook and releases the amount', async () => {
    const transID = await approvedPayment('4000000000005126', '/refund-fails');
    const accepted = await env.http.post('/api/transactions/refund-request', {
      transID,
      refundAmount: '10.50',
      public_key: CREDS.publicKey,
    });
    expect(accepted.status).toBe(200);
    await env.http.post('/_sandbox/clock/advance', { duration: '2s' });

    const hooks = await waitFor(() => {
      const got = env.merchant.at('/refund-fails').map((r) => ({ r, fields: Object.fromEntries(new URLSearchParams(r.body)) }));
      return got.some((h) => h.fields.response?.includes('failed')) && got;
    }, 'the refund.failed webhook');
    const failed = hooks.find((h) => h.fields.response!.includes('Refund of'))!;
    expect(failed.fields).toMatchObject({ transID, order_status: '25', status: 'Test Approved', bill_amt: '10.50' });
    expect(failed.fields.response).toMatch(/^Refund of 10\.50 EUR failed: the acquirer rejected the refund/);
    expect(verifySignature(failed.r.headers['x-sandbox-signature'] as string, CREDS.secret, failed.r.body)).toBe(true);

    const after = (await env.http.get(`/_sandbox/transactions/${transID}`)).json;
    expect(after).toMatchObject({ status: 'Test Approved', refunded_amt: '0.00' });
    // The failed refund no longer holds the amount: the whole of it can be asked again.
    expect(
      (await env.http.post('/api/transactions/refund-request', { transID, refundAmount: '10.50', public_key: CREDS.publicKey })).status,
    ).toBe(200);
  });
});
