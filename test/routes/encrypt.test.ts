// POST /api/s2s/encrypt: decryption failures in plain words, tolerated near-misses reported in
// X-Sandbox-Warning, the shared validator with encryption_method as the 12th field, the spec §2.3
// field set, and webhooks encrypted (or not) as encryption_method asks.
import { createCipheriv } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildEncryptedData, decryptWebhookData, deriveKeyAndIv, encryptText } from '../../src/crypto/s2s-cipher.js';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';

const KEYS = { publicKey: CREDS.publicKey, privateKey: CREDS.privateKey };
const SPEC_2_3 = ['authurl', 'bill_amt', 'bill_currency', 'order_status', 'reference', 'response', 'status', 'transID'];

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

/** The query string a merchant encrypts: the /api/s2s fields plus encryption_method. */
function queryOf(overrides: Record<string, unknown> = {}): string {
  const fields = { ...s2sBody(), encryption_method: 'aes256', ...overrides };
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) params.set(key, String(value));
  return params.toString();
}

/** Posts encrypted_data URL-encoded, as a form should be. */
function post(encryptedData: string) {
  return sb.postForm('/api/s2s/encrypt', { encrypted_data: encryptedData });
}

/** AES-256-CBC of `plain` with the docs/decisions.md key and IV, base64-encoded once. */
function singleBase64(plain: string, keys = KEYS): string {
  const { key, iv } = deriveKeyAndIv(keys);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  return Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]).toString('base64');
}

/** The body of the one webhook delivery queued for a transaction. */
function webhookBodyOf(transId: string): string {
  const delivery = sb.store.deliveries.list({ limit: 50 }).find((d) => d.body.includes(transId) || decryptable(d.body, transId));
  expect(delivery, `a webhook delivery for ${transId}`).toBeDefined();
  return delivery!.body;
}

function decryptable(body: string, transId: string): boolean {
  const data = new URLSearchParams(body).get('data');
  return data !== null && decryptWebhookData(data, KEYS).includes(transId);
}

describe('accepted requests', () => {
  it('creates a pending payment and answers exactly the spec §2.3 fields', async () => {
    const res = await post(buildEncryptedData(queryOf({ reference: 'enc_1' }), KEYS));
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(SPEC_2_3);
    expect(res.json).toMatchObject({ reference: 'enc_1', order_status: '0', status: 'Pending', bill_amt: '10.50', bill_currency: 'EUR' });
    expect(res.json.authurl).toMatch(/^http:\/\/sandbox\.test\/authenticate\/[\w-]+$/);
    expect(res.headers.get('x-sandbox-warning')).toBeNull();
  });

  it('creates the same transaction /api/s2s would (mop and masked card kept on the transaction)', async () => {
    const res = await post(buildEncryptedData(queryOf({ ccno: '4242424242424242' }), KEYS));
    const control = await sb.request('GET', `/_sandbox/transactions/${res.json.transID}`);
    expect(control.json).toMatchObject({ status: 'Test Approved', mop: 'VISA', ccno: '424242XXXXXX4242', terNO: 1001 });
  });

  it('accepts single base64 and says so in X-Sandbox-Warning', async () => {
    const res = await post(singleBase64(queryOf()) + CREDS.publicKey);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-sandbox-warning')).toContain('base64-encoded once');
  });

  it("accepts a ciphertext whose '=' padding was dropped and says so", async () => {
    // Lengthen the reference until the canonical text really ends in '=' (it depends on the block count).
    let query = queryOf({ reference: 'pad_' });
    for (let i = 1; !encryptText(query, KEYS).endsWith('='); i++) query = queryOf({ reference: `pad_${'x'.repeat(i)}` });
    const res = await post(encryptText(query, KEYS).replace(/=+$/, '') + CREDS.publicKey);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-sandbox-warning')).toContain('padding was missing');
  });

  it('accepts raw spaces in values (as parse_str does) and says so', async () => {
    const res = await post(buildEncryptedData(queryOf({ product_name: 'Blue mug' }).replace('Blue+mug', 'Blue mug'), KEYS));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-sandbox-warning')).toContain("contains a raw space; it was accepted, but encode spaces as '+'");
  });

  it('finds the terminal by the public_key suffix: the second merchant encrypts with its own keys', async () => {
    const other = { publicKey: CREDS.other.publicKey, privateKey: CREDS.other.privateKey };
    const res = await post(buildEncryptedData(queryOf({ public_key: other.publicKey, terNO: CREDS.other.terNO }), other));
    expect(res.status).toBe(200);
    const control = await sb.request('GET', `/_sandbox/transactions/${res.json.transID}`);
    expect(control.json.merchant_id).toBe('mer_other');
  });
});

describe('decryption failures are 400s in plain words', () => {
  const cases: Array<[string, () => string | Promise<string>, RegExp]> = [
    [
      'no known public_key at the end',
      () => `${encryptText(queryOf(), KEYS)}pk_test_9999`,
      /does not end with a known terminal public_key/,
    ],
    ['nothing before the public_key', () => CREDS.publicKey, /no ciphertext before the public_key/],
    ['not base64', () => `not*base64!${CREDS.publicKey}`, /not base64: character "\*" at position 3/],
    ['impossible base64 length', () => `QUJDR${CREDS.publicKey}`, /not base64: its length/],
    ['not whole AES blocks', () => Buffer.from('hello world').toString('base64') + CREDS.publicKey, /not a multiple of 16/],
    [
      'wrong private_key (padding)',
      () => buildEncryptedData(queryOf(), { publicKey: CREDS.publicKey, privateKey: 'pv_wrong' }),
      // A wrong key leaves the last block random: its PKCS#7 padding fails, but about one time in
      // 256 (the query's reference is random) it ends in 0x01 and passes; the bytes are then not
      // UTF-8. Both answers name the private_key.
      /padding is wrong.*private_key|not valid UTF-8.*private_key/,
    ],
  ];
  for (const [what, make, message] of cases) {
    it(what, async () => {
      const res = await post(await make());
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code: 'decryption_failed', param: 'encrypted_data' });
      expect(res.json.error.message).toMatch(message);
    });
  }

  it("'+' turned into spaces: the form was not URL-encoded", async () => {
    let single = '';
    while (!single.includes('+')) single = singleBase64(queryOf({ reference: `plus_${Math.random().toString(36).slice(2)}` }));
    // Sent raw: the form decoder reads every '+' as a space, as any server would.
    const res = await sb.request('POST', '/api/s2s/encrypt', `encrypted_data=${single}${CREDS.publicKey}`, {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('decryption_failed');
    expect(res.json.error.message).toMatch(/'\+' was turned into a space because the form field was not URL-encoded.*decrypts correctly/);
  });

  it('decrypted text that is not a query string', async () => {
    const res = await post(buildEncryptedData(JSON.stringify({ public_key: CREDS.publicKey, terNO: 1001 }), KEYS));
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'encrypted_data' });
    expect(res.json.error.message).toMatch(/not a query string \(it looks like JSON\)/);
    const lines = await post(buildEncryptedData('public_key=pk_test_1001\nterNO=1001', KEYS));
    expect(lines.status).toBe(400);
    expect(lines.json.error.message).toMatch(/not a query string; encrypt key=value pairs joined with '&'/);
  });

  it('encrypted_data missing', async () => {
    const res = await sb.request('POST', '/api/s2s/encrypt', 'other=1', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_missing', param: 'encrypted_data' });
  });

  it('a JSON body instead of a form', async () => {
    const res = await sb.request('POST', '/api/s2s/encrypt', { encrypted_data: buildEncryptedData(queryOf(), KEYS) });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('unsupported_content_type');
    expect(res.json.error.message).toContain('application/x-www-form-urlencoded');
  });

  it('a warning still comes with a rejected request', async () => {
    const res = await post(singleBase64(queryOf({ bill_currency: 'XXX' })) + CREDS.publicKey);
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe('bill_currency');
    expect(res.headers.get('x-sandbox-warning')).toContain('base64-encoded once');
  });
});

describe('the decrypted parameters go through the /api/s2s validator', () => {
  it('encryption_method is the 12th mandatory field', async () => {
    const res = await post(buildEncryptedData(queryOf({ encryption_method: undefined }), KEYS));
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_missing', param: 'encryption_method' });
    expect(res.json.error.message).toContain('"aes256"');
  });

  it('encryption_method must be aes256 or none', async () => {
    const res = await post(buildEncryptedData(queryOf({ encryption_method: 'des' }), KEYS));
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'encryption_method' });
  });

  it('a card failing Luhn names ccno without echoing it', async () => {
    const res = await post(buildEncryptedData(queryOf({ ccno: '4242424242424241' }), KEYS));
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe('ccno');
    expect(res.json.error.message).not.toContain('4242424242424241');
  });

  it('the public_key inside must be the one appended (401)', async () => {
    const res = await post(buildEncryptedData(queryOf({ public_key: CREDS.other.publicKey, terNO: CREDS.other.terNO }), KEYS));
    expect(res.status).toBe(401);
    expect(res.json.error).toMatchObject({ code: 'invalid_credentials', param: 'public_key' });
  });

  it('terNO must be the terminal of the public_key (401)', async () => {
    const res = await post(buildEncryptedData(queryOf({ terNO: CREDS.other.terNO }), KEYS));
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('invalid_credentials');
  });
});

describe('webhooks of encrypted payments', () => {
  it('aes256: the body is data=<cipher>, which decrypts with the terminal keys to the spec §6.1 fields', async () => {
    const res = await post(buildEncryptedData(queryOf({ ccno: '4242424242424242', reference: 'enc_hook' }), KEYS));
    const body = webhookBodyOf(res.json.transID);
    const form = new URLSearchParams(body);
    expect([...form.keys()]).toEqual(['data']);
    const fields = Object.fromEntries(new URLSearchParams(decryptWebhookData(form.get('data')!, KEYS)));
    expect(fields).toMatchObject({
      transID: res.json.transID,
      reference: 'enc_hook',
      order_status: '25',
      status: 'Test Approved',
      bill_amt: '10.50',
      bill_currency: 'EUR',
      mop: 'VISA',
      ccno: '424242XXXXXX4242',
    });
  });

  it('none: the body is the plain query string', async () => {
    const res = await post(buildEncryptedData(queryOf({ ccno: '4242424242424242', encryption_method: 'none' }), KEYS));
    const fields = Object.fromEntries(new URLSearchParams(webhookBodyOf(res.json.transID)));
    expect(fields).toMatchObject({ transID: res.json.transID, order_status: '25', status: 'Test Approved' });
  });
});
