// POST /api/s2s refuses every bad body with a 400 in the docs/decisions.md error shape naming the
// field, stores nothing, and never echoes the card number.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSandbox, CREDS, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { buildEncryptedData } from '../../src/crypto/s2s-cipher.js';

let sandbox: TestSandbox;
beforeAll(() => {
  sandbox = createTestSandbox();
});
afterAll(() => sandbox.close());

/** Rows in every table a payment writes to: nothing may change on a rejected request. */
function stored() {
  const count = (table: string) => sandbox.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
  return { transactions: count('transactions'), challenges: count('challenges'), events: count('events'), deliveries: count('deliveries') };
}

const without = (field: string) => {
  const body = s2sBody();
  delete body[field];
  return body;
};

const MANDATORY = ['public_key', 'terNO', 'bill_amt', 'bill_currency', 'product_name', 'reference', 'webhook_url', 'return_url', 'mop'];
const CARD_FIELDS = ['ccno', 'ccvv', 'month', 'year'];

type Row = [name: string, body: Record<string, unknown>, param: string, code: string];

const BAD_BODIES: Row[] = [
  ...MANDATORY.map((field): Row => [`${field} missing`, without(field), field, 'parameter_missing']),
  ...MANDATORY.filter((f) => f !== 'terNO').map((field): Row => [`${field} empty`, s2sBody({ [field]: '' }), field, 'parameter_missing']),
  ...MANDATORY.map((field): Row => [`${field} null`, s2sBody({ [field]: null }), field, 'parameter_missing']),
  ...CARD_FIELDS.map((field): Row => [`${field} missing with mop CC`, { ...without(field), mop: 'CC' }, field, 'parameter_missing']),
  ...CARD_FIELDS.map((field): Row => [`${field} missing with mop DC`, { ...without(field), mop: 'DC' }, field, 'parameter_missing']),
  ...CARD_FIELDS.map((field): Row => [`${field} empty with mop CC`, s2sBody({ [field]: '' }), field, 'parameter_missing']),
  ['terNO not a number', s2sBody({ terNO: 'abc' }), 'terNO', 'parameter_invalid'],
  ['terNO zero', s2sBody({ terNO: 0 }), 'terNO', 'parameter_invalid'],
  ['terNO a fraction', s2sBody({ terNO: 1001.5 }), 'terNO', 'parameter_invalid'],
  ['public_key a number', s2sBody({ public_key: 1001 }), 'public_key', 'parameter_invalid'],
  ['ccno fails Luhn', s2sBody({ ccno: '4242424242424241' }), 'ccno', 'parameter_invalid'],
  ['ccno 12 digits', s2sBody({ ccno: '401288888886' }), 'ccno', 'parameter_invalid'],
  ['ccno 20 digits', s2sBody({ ccno: '42424242424242424242' }), 'ccno', 'parameter_invalid'],
  ['ccno with letters', s2sBody({ ccno: '4242abcd42424242' }), 'ccno', 'parameter_invalid'],
  ['ccno an object', s2sBody({ ccno: { n: 1 } }), 'ccno', 'parameter_invalid'],
  ['month 13', s2sBody({ month: '13' }), 'month', 'parameter_invalid'],
  ['month 00', s2sBody({ month: '00' }), 'month', 'parameter_invalid'],
  ['month one digit', s2sBody({ month: '1' }), 'month', 'parameter_invalid'],
  ['year in the past', s2sBody({ month: '12', year: '25' }), 'year', 'parameter_invalid'],
  ['year last month', s2sBody({ month: '12', year: '20' }), 'year', 'parameter_invalid'],
  ['year four digits', s2sBody({ year: '2030' }), 'year', 'parameter_invalid'],
  ['ccvv 2 digits', s2sBody({ ccvv: '12' }), 'ccvv', 'parameter_invalid'],
  ['ccvv 5 digits', s2sBody({ ccvv: '12345' }), 'ccvv', 'parameter_invalid'],
  ['ccvv letters', s2sBody({ ccvv: 'abc' }), 'ccvv', 'parameter_invalid'],
  ['bill_amt 0', s2sBody({ bill_amt: 0 }), 'bill_amt', 'parameter_invalid'],
  ['bill_amt "0"', s2sBody({ bill_amt: '0' }), 'bill_amt', 'parameter_invalid'],
  ['bill_amt "0.00"', s2sBody({ bill_amt: '0.00' }), 'bill_amt', 'parameter_invalid'],
  ['bill_amt -1', s2sBody({ bill_amt: -1 }), 'bill_amt', 'parameter_invalid'],
  ['bill_amt "-1"', s2sBody({ bill_amt: '-1' }), 'bill_amt', 'parameter_invalid'],
  ['bill_amt "10.505"', s2sBody({ bill_amt: '10.505' }), 'bill_amt', 'parameter_invalid'],
  ['bill_amt 10.505', s2sBody({ bill_amt: 10.505 }), 'bill_amt', 'parameter_invalid'],
  ['bill_amt "abc"', s2sBody({ bill_amt: 'abc' }), 'bill_amt', 'parameter_invalid'],
  ['bill_amt "1e3"', s2sBody({ bill_amt: '1e3' }), 'bill_amt', 'parameter_invalid'],
  ['bill_amt "100000000"', s2sBody({ bill_amt: '100000000' }), 'bill_amt', 'parameter_invalid'],
  ['bill_amt 100000000', s2sBody({ bill_amt: 100000000 }), 'bill_amt', 'parameter_invalid'],
  ['bill_amt true', s2sBody({ bill_amt: true }), 'bill_amt', 'parameter_invalid'],
  ['JPY "10.50"', s2sBody({ bill_currency: 'JPY', bill_amt: '10.50' }), 'bill_amt', 'parameter_invalid'],
  ['bill_currency lower case', s2sBody({ bill_currency: 'eur' }), 'bill_currency', 'parameter_invalid'],
  ['bill_currency XXX', s2sBody({ bill_currency: 'XXX' }), 'bill_currency', 'parameter_invalid'],
  ['webhook_url ftp://', s2sBody({ webhook_url: 'ftp://shop.example/hook' }), 'webhook_url', 'parameter_invalid'],
  ['webhook_url not a url', s2sBody({ webhook_url: 'not a url' }), 'webhook_url', 'parameter_invalid'],
  ['webhook_url javascript:', s2sBody({ webhook_url: 'javascript:alert(1)' }), 'webhook_url', 'parameter_invalid'],
  ['return_url ftp://', s2sBody({ return_url: 'ftp://shop.example/back' }), 'return_url', 'parameter_invalid'],
  ['return_url not a url', s2sBody({ return_url: 'not a url' }), 'return_url', 'parameter_invalid'],
  ['integration-type hosted', s2sBody({ 'integration-type': 'hosted' }), 'integration-type', 'parameter_invalid'],
  ['mop CASH', s2sBody({ mop: 'CASH' }), 'mop', 'parameter_invalid'],
  ['mop lower case', s2sBody({ mop: 'cc' }), 'mop', 'parameter_invalid'],
  ['UPICOLLECT without vpa', s2sBody({ mop: 'UPICOLLECT' }), 'vpa', 'parameter_missing'],
  ['vpa without a handle', s2sBody({ mop: 'UPICOLLECT', vpa: 'success' }), 'vpa', 'parameter_invalid'],
  ['product_name a number', s2sBody({ product_name: 42 }), 'product_name', 'parameter_invalid'],
  ['reference of 65 characters', s2sBody({ reference: 'r'.repeat(65) }), 'reference', 'parameter_invalid'],
  ['bill_email not an address', s2sBody({ bill_email: 'jane' }), 'bill_email', 'parameter_invalid'],
  ['bill_country lower case', s2sBody({ bill_country: 'nl' }), 'bill_country', 'parameter_invalid'],
  ['bill_phone letters', s2sBody({ bill_phone: 'call me' }), 'bill_phone', 'parameter_invalid'],
  ['fullname over 255 characters', s2sBody({ fullname: 'x'.repeat(256) }), 'fullname', 'parameter_invalid'],
];

describe('POST /api/s2s: a table of bad bodies', () => {
  it.each(BAD_BODIES)('%s -> 400 %3$s (%4$s)', async (_name, body, param, code) => {
    const before = stored();
    const res = await sandbox.request('POST', '/api/s2s', body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code, param });
    expect(res.json.error.request_id).toMatch(/^req_[0-9A-Za-z]+$/);
    expect(res.json.error.message).toContain(param);
    expect(Object.keys(res.json.error).sort()).toEqual(['code', 'message', 'param', 'request_id', 'type']);
    expect(res.headers.get('x-request-id')).toBe(res.json.error.request_id);
    if (typeof body.ccno === 'string' && body.ccno.length >= 12) expect(res.text).not.toContain(body.ccno);
    expect(stored()).toEqual(before);
  });
});

describe('POST /api/s2s: bodies that are not a JSON object', () => {
  it.each([
    ['malformed JSON', '{"terNO": 1001,', { 'content-type': 'application/json' }, 'invalid_json'],
    ['an empty body', '', { 'content-type': 'application/json' }, 'invalid_json'],
    ['whitespace only', '   ', { 'content-type': 'application/json' }, 'invalid_json'],
    ['a JSON array', JSON.stringify([s2sBody()]), { 'content-type': 'application/json' }, 'invalid_json'],
    ['a JSON string', '"hello"', { 'content-type': 'application/json' }, 'invalid_json'],
    ['JSON null', 'null', { 'content-type': 'application/json' }, 'invalid_json'],
    ['text/plain', JSON.stringify(s2sBody()), { 'content-type': 'text/plain' }, 'unsupported_content_type'],
    [
      'a form body',
      new URLSearchParams(s2sBody() as Record<string, string>).toString(),
      { 'content-type': 'application/x-www-form-urlencoded' },
      'unsupported_content_type',
    ],
    ['no content type', JSON.stringify(s2sBody()), {}, 'unsupported_content_type'],
  ])('%s -> 400 %4$s', async (_name, text, headers, code) => {
    const before = stored();
    const res = await sandbox.request('POST', '/api/s2s', text, headers as Record<string, string>);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code });
    expect(res.json.error.message.length).toBeGreaterThan(10);
    expect(res.text).not.toContain('4000000000003220');
    expect(stored()).toEqual(before);
  });

  it('answers 413 body_too_large for a body over 1 MiB', async () => {
    const before = stored();
    const res = await sandbox.request('POST', '/api/s2s', s2sBody({ product_name: 'x'.repeat(1024 * 1024 + 1) }));
    expect(res.status).toBe(413);
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code: 'body_too_large' });
    expect(stored()).toEqual(before);
  });

  it.each([['GET'], ['PUT'], ['DELETE']])('answers %s /api/s2s with 405 method_not_allowed in the error shape', async (method) => {
    const res = await sandbox.request(method, '/api/s2s');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code: 'method_not_allowed' });
    expect(res.json.error.message).toContain(`/api/s2s does not take ${method}`);
  });

  it('accepts application/json with a charset parameter', async () => {
    const res = await sandbox.request('POST', '/api/s2s', JSON.stringify(s2sBody()), { 'content-type': 'application/json; charset=utf-8' });
    expect(res.status).toBe(200);
  });
});

describe('POST /api/s2s: messages say how to fix the amount', () => {
  it.each([
    ['10.505 EUR as a JSON number', { bill_amt: 10.505 }, /at most 2 decimals/],
    ['"10.505" EUR', { bill_amt: '10.505' }, /at most 2 decimals/],
    ['"10.50" JPY', { bill_currency: 'JPY', bill_amt: '10.50' }, /more decimals than JPY allows; send a whole amount/],
    ['"eur"', { bill_currency: 'eur' }, /ISO 4217 currency code in capitals, e\.g\. "EUR", got "eur"/],
  ])('%s', async (_name, overrides, message) => {
    const res = await sandbox.request('POST', '/api/s2s', s2sBody(overrides));
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(message);
  });
});

describe('POST /api/s2s: credentials', () => {
  it.each([
    ['a wrong public_key for our terNO', { terNO: CREDS.terNO, public_key: 'pk_test_wrong' }],
    ["the other merchant's public_key with our terNO", { terNO: CREDS.terNO, public_key: CREDS.other.publicKey }],
    ["our public_key with the other merchant's terNO", { terNO: CREDS.other.terNO, public_key: CREDS.publicKey }],
    ['an unknown terNO', { terNO: 9999, public_key: CREDS.publicKey }],
    ['the private_key instead of the public_key', { terNO: CREDS.terNO, public_key: CREDS.privateKey }],
  ])('%s -> 401 invalid_credentials, nothing stored', async (_name, overrides) => {
    const before = stored();
    const res = await sandbox.request('POST', '/api/s2s', s2sBody(overrides));
    expect(res.status).toBe(401);
    expect(res.json.error).toMatchObject({ type: 'authentication_error', code: 'invalid_credentials', param: 'public_key' });
    expect(res.json.error.message).toMatch(/terNO and public_key/);
    // The sent key is never echoed (the hint names only the seeded demo terminal).
    if (overrides.public_key !== CREDS.publicKey) expect(res.text).not.toContain(overrides.public_key);
    expect(stored()).toEqual(before);
  });

  it('reports a malformed body before checking credentials (400, not 401)', async () => {
    const res = await sandbox.request('POST', '/api/s2s', s2sBody({ public_key: 'pk_test_wrong', bill_amt: 'abc' }));
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe('bill_amt');
  });
});

describe('POST /api/s2s: reference reuse', () => {
  it('answers 409 reference_in_use for a reference already used on the terminal, storing nothing', async () => {
    const first = await sandbox.request('POST', '/api/s2s', s2sBody({ reference: 'ord_dup_1' }));
    expect(first.status).toBe(200);
    const before = stored();
    const again = await sandbox.request('POST', '/api/s2s', s2sBody({ reference: 'ord_dup_1', bill_amt: '99.00' }));
    expect(again.status).toBe(409);
    expect(again.json.error).toMatchObject({ type: 'conflict_error', code: 'reference_in_use', param: 'reference' });
    expect(again.json.error.message).toContain('ord_dup_1');
    expect(stored()).toEqual(before);
  });

  it('tells a retry where the payment is: its transID and authstatus URL, which answers that payment', async () => {
    const body = s2sBody({ reference: 'ord_retry_1', ccno: '4242424242424242' });
    const first = await sandbox.request('POST', '/api/s2s', body);
    const retry = await sandbox.request('POST', '/api/s2s', body);
    expect(retry.status).toBe(409);
    expect(retry.json.error.code).toBe('reference_in_use');
    expect(retry.json.error.message).toContain(`by transID ${first.json.transID}`);
    expect(retry.json.error.message).toContain(first.json.authstatus);
    const url = /(http:\/\/sandbox\.test\/api\/s2s\/status\/\S+) instead/.exec(retry.json.error.message)![1]!;
    const status = await sandbox.request('GET', new URL(url).pathname);
    expect(status.json).toMatchObject({ transID: first.json.transID, reference: 'ord_retry_1', status: first.json.status });
  });

  it('tells the same to a retry of an encrypted create (/api/s2s/encrypt)', async () => {
    const first = await sandbox.request('POST', '/api/s2s', s2sBody({ reference: 'ord_retry_2' }));
    const query = new URLSearchParams({
      ...(s2sBody({ reference: 'ord_retry_2' }) as Record<string, string>),
      terNO: String(CREDS.terNO),
      encryption_method: 'none',
    }).toString();
    const form = new URLSearchParams({
      encrypted_data: buildEncryptedData(query, { publicKey: CREDS.publicKey, privateKey: CREDS.privateKey }),
    }).toString();
    const retry = await sandbox.request('POST', '/api/s2s/encrypt', form, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(retry.status).toBe(409);
    expect(retry.json.error).toMatchObject({ code: 'reference_in_use', param: 'reference' });
    expect(retry.json.error.message).toContain(`by transID ${first.json.transID}`);
    expect(retry.json.error.message).toContain(first.json.authstatus);
  });

  it('lets another terminal use the same reference', async () => {
    expect((await sandbox.request('POST', '/api/s2s', s2sBody({ reference: 'ord_dup_2' }))).status).toBe(200);
    const other = await sandbox.request(
      'POST',
      '/api/s2s',
      s2sBody({ reference: 'ord_dup_2', terNO: CREDS.other.terNO, public_key: CREDS.other.publicKey }),
    );
    expect(other.status).toBe(200);
  });

  it('does not count a rejected request as a use of the reference', async () => {
    const bad = await sandbox.request('POST', '/api/s2s', s2sBody({ reference: 'ord_retry_after_fix', ccvv: '1' }));
    expect(bad.status).toBe(400);
    const fixed = await sandbox.request('POST', '/api/s2s', s2sBody({ reference: 'ord_retry_after_fix' }));
    expect(fixed.status).toBe(200);
  });
});

describe('POST /api/s2s: accepted variations', () => {
  it.each([
    ['bill_amt as a JSON number', { bill_amt: 10.5 }, '10.50'],
    ['bill_amt without decimals', { bill_amt: '10' }, '10.00'],
    ['bill_amt at the decimal(10,2) maximum', { bill_amt: '99999999.99' }, '99999999.99'],
    ['terNO as a string', { terNO: '1001' }, '10.50'],
    ['no integration-type', { 'integration-type': undefined }, '10.50'],
    ['a 19-digit card', { ccno: '6200000000000000000' }, '10.50'],
    ['a 13-digit card', { ccno: '4222222222222' }, '10.50'],
    ['a card typed with spaces', { ccno: '4000 0000 0000 3220' }, '10.50'],
    ['a 4-digit CVV', { ccvv: '1234' }, '10.50'],
    ['JPY without decimals', { bill_currency: 'JPY', bill_amt: '1000' }, '1000.00'],
    ['mop DC', { mop: 'DC' }, '10.50'],
  ])('%s -> 200', async (_name, overrides, billAmt) => {
    const res = await sandbox.request('POST', '/api/s2s', s2sBody(overrides));
    expect(res.status).toBe(200);
    expect(res.json.bill_amt).toBe(billAmt);
  });

  it('ignores bill_ip in the body: the service sets it from the connection', async () => {
    const res = await sandbox.request('POST', '/api/s2s', s2sBody({ bill_ip: '203.0.113.66' }));
    expect(res.status).toBe(200);
    const t = sandbox.store.transactions.get(res.json.transID)!;
    expect(t.billIp).not.toBe('203.0.113.66');
    expect(JSON.stringify(t)).not.toContain('203.0.113.66');
  });

  it('ignores fields it does not know, as the gateway does', async () => {
    const res = await sandbox.request('POST', '/api/s2s', s2sBody({ colour: 'blue' }));
    expect(res.status).toBe(200);
  });

  it('never stores the full card number or the CVV', async () => {
    const res = await sandbox.request('POST', '/api/s2s', s2sBody({ ccno: '4000000000003220', ccvv: '987' }));
    expect(res.status).toBe(200);
    const row = JSON.stringify(sandbox.db.prepare('SELECT * FROM transactions WHERE trans_id = ?').get(res.json.transID));
    expect(row).not.toContain('4000000000003220');
    expect(row).not.toContain('"987"');
  });
});

describe('printable text and URLs in the optional customer fields', () => {
  const sandbox = createTestSandbox();
  it.each([
    ['product_name', 'Tea\u0000'],
    ['reference', 'ord\u001b[31m'],
    ['fullname', 'Jane\u0007Doe'],
    ['source_url', '💳'],
    ['source_url', 'javascript:alert(1)'],
  ])('%s %j is a 400 naming the field', async (field, value) => {
    const res = await sandbox.request('POST', '/api/s2s', s2sBody({ [field]: value }));
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe(field);
  });
  it('accepts a UPI VPA with a one-letter provider', async () => {
    const res = await sandbox.request(
      'POST',
      '/api/s2s',
      s2sBody({ mop: 'UPICOLLECT', vpa: 'failure@x', ccno: undefined, ccvv: undefined, month: undefined, year: undefined }),
    );
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('Test Declined');
  });
});
