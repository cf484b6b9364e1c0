// Scripted outcomes: the X-Sandbox-Outcome header, the scenario queue over the control API and
// --scenario files, and their precedence over test cards.
import { fileURLToPath } from 'node:url';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestSandbox, s2sBody, CREDS, type TestSandbox } from '../helpers/test-sandbox.js';

const scenarioFile = (name: string) => fileURLToPath(new URL(`../../fixtures/scenarios/${name}.json`, import.meta.url));

let sandbox: TestSandbox;
afterEach(() => sandbox?.close());

const pay = (overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  sandbox.request('POST', '/api/s2s', s2sBody(overrides), headers);
const authenticate = (transID: string, outcome: string) =>
  sandbox.request('POST', `/_sandbox/transactions/${transID}/authenticate`, { outcome });

describe('X-Sandbox-Outcome header', () => {
  it('forces a decline over the frictionless test card', async () => {
    sandbox = createTestSandbox();
    const res = await pay({ ccno: '4242424242424242' }, { 'X-Sandbox-Outcome': 'decline:insufficient_funds' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ order_status: '24', status: 'Test Declined', authurl: '' });
    expect(res.json.response).toMatch(/^insufficient_funds: /);
  });

  it('forces an approval without a challenge on a card that would be challenged', async () => {
    sandbox = createTestSandbox();
    const res = await pay({ ccno: '4000000000003220' }, { 'x-sandbox-outcome': 'approve' });
    expect(res.json).toMatchObject({ order_status: '25', status: 'Test Approved', authurl: '' });
  });

  it('challenge:then-decline:<code> challenges, then declines with the code once it passes', async () => {
    sandbox = createTestSandbox();
    const res = await pay({ ccno: '4242424242424242' }, { 'X-Sandbox-Outcome': 'challenge:then-decline:stolen_card' });
    expect(res.json.order_status).toBe('0');
    expect(res.json.authurl).not.toBe('');
    const done = await authenticate(res.json.transID, 'approve');
    expect(done.json).toMatchObject({ order_status: '24', authentication: 'passed' });
    expect(done.json.response).toMatch(/^stolen_card: /);
  });

  it('hang leaves the payment Pending with no challenge', async () => {
    sandbox = createTestSandbox();
    const res = await pay({}, { 'X-Sandbox-Outcome': 'hang' });
    expect(res.json).toMatchObject({ order_status: '0', authurl: '' });
    const shown = await sandbox.request('GET', `/_sandbox/transactions/${res.json.transID}`);
    expect(shown.json.order_status).toBe('0');
  });

  it.each([['decline:bogus'], ['approve please'], [''], ['challenge:then-decline:']])(
    'refuses %j with a 400 naming the header and listing the vocabulary',
    async (value) => {
      sandbox = createTestSandbox();
      const res = await pay({}, { 'X-Sandbox-Outcome': value });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'X-Sandbox-Outcome' });
      expect(res.json.error.message).toContain('approve, decline:<code>, challenge, challenge:fail');
      expect(res.json.error.message).toContain('insufficient_funds');
    },
  );
});

describe('scenario queue over the control API', () => {
  it('consumes entries in order and falls back to the test card when none is left', async () => {
    sandbox = createTestSandbox();
    const posted = await sandbox.request('POST', '/_sandbox/scenarios', {
      name: 'ci',
      entries: [{ outcome: 'decline:card_declined' }, { outcome: 'approve', times: 2 }],
    });
    expect(posted.status).toBe(201);
    expect(posted.json.added).toBe(2);

    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) outcomes.push((await pay({ ccno: '4000000000003220' })).json.order_status);
    // decline, approve, approve, then the card's own outcome (a challenge: Pending).
    expect(outcomes).toEqual(['24', '25', '25', '0']);

    const listed = await sandbox.request('GET', '/_sandbox/scenarios');
    expect(listed.json.data).toEqual([
      expect.objectContaining({ scenario: 'ci', outcome: 'decline:card_declined', times: 1, used: 1, remaining: 0 }),
      expect.objectContaining({ scenario: 'ci', outcome: 'approve', times: 2, used: 2, remaining: 0 }),
    ]);
  });

  it('matches on reference globs, amount in minor units, mop and terNO', async () => {
    sandbox = createTestSandbox();
    await sandbox.request('POST', '/_sandbox/scenarios', {
      entries: [
        { reference: 'vip-*', outcome: 'decline:lost_card' },
        { amount: 4200, outcome: 'decline:expired_card' },
        { mop: 'nb', outcome: 'approve' },
        { terNO: CREDS.other.terNO, outcome: 'decline:processing_error' },
      ],
    });
    // None of the entries matches this one: the frictionless card approves.
    expect((await pay({ ccno: '4242424242424242', reference: 'plain-1' })).json.order_status).toBe('25');
    expect((await pay({ reference: 'vip-007' })).json.response).toMatch(/^lost_card/);
    expect((await pay({ bill_amt: '42.00' })).json.response).toMatch(/^expired_card/);
    const nb = await pay({ mop: 'NB', ccno: undefined, ccvv: undefined, month: undefined, year: undefined });
    expect(nb.json.order_status).toBe('25');
    const other = await pay({ terNO: CREDS.other.terNO, public_key: CREDS.other.publicKey });
    expect(other.json.response).toMatch(/^processing_error/);
    const listed = await sandbox.request('GET', '/_sandbox/scenarios');
    expect(listed.json.data.map((e: { remaining: number }) => e.remaining)).toEqual([0, 0, 0, 0]);
  });

  it('the header wins over the scenario and leaves its entry unspent', async () => {
    sandbox = createTestSandbox();
    await sandbox.request('POST', '/_sandbox/scenarios', { entries: [{ outcome: 'decline:card_declined' }] });
    expect((await pay({}, { 'X-Sandbox-Outcome': 'approve' })).json.order_status).toBe('25');
    expect((await sandbox.request('GET', '/_sandbox/scenarios')).json.data[0].remaining).toBe(1);
    expect((await pay()).json.order_status).toBe('24');
  });

  it('decides /v1/ payments too, matched on amount and reference', async () => {
    sandbox = createTestSandbox();
    await sandbox.request('POST', '/_sandbox/scenarios', {
      entries: [{ amount: 1500, reference: 'v1-*', outcome: 'decline:insufficient_funds' }],
    });
    const v1 = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      sandbox.request('POST', '/v1/payments', body, { authorization: `Bearer ${CREDS.apiKey}`, ...headers });
    expect((await v1({ amount: 1500, currency: 'EUR', reference: 'other-1' })).json.status).toBe('authorized');
    const declined = await v1({ amount: 1500, currency: 'EUR', reference: 'v1-order' });
    expect(declined.json).toMatchObject({ status: 'declined', decline_code: 'insufficient_funds' });
    const bad = await v1({ amount: 1500, currency: 'EUR' }, { 'X-Sandbox-Outcome': 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe('X-Sandbox-Outcome');
  });

  it('DELETE empties the queue', async () => {
    sandbox = createTestSandbox();
    await sandbox.request('POST', '/_sandbox/scenarios', { entries: [{ outcome: 'approve', times: 5 }] });
    const deleted = await sandbox.request('DELETE', '/_sandbox/scenarios');
    expect(deleted.json).toEqual({ removed: 1, object: 'list', data: [], has_more: false });
    expect((await pay()).json.order_status).toBe('0');
  });

  it.each([
    [{ entries: [{ outcome: 'explode' }] }, 'parameter_invalid', 'entries.0.outcome', /outcome must be one of approve, decline:<code>/],
    [{ entries: [{ outcome: 'approve', refrence: 'x' }] }, 'parameter_unknown', 'entries.0.refrence', /refrence is not a field/],
    [{ entries: [{ outcome: 'approve', amount: 10.5 }] }, 'parameter_invalid', 'entries.0.amount', /minor units/],
    [{ entries: [{ outcome: 'approve', times: 0 }] }, 'parameter_invalid', 'entries.0.times', /whole number/],
    [{ entries: [] }, 'parameter_invalid', 'entries', /list of entries/],
    [{}, 'parameter_missing', 'entries', /entries is required/],
  ])('refuses a bad document %j with a 400 naming the field', async (doc, code, param, message) => {
    sandbox = createTestSandbox();
    const res = await sandbox.request('POST', '/_sandbox/scenarios', doc);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code, param });
    expect(res.json.error.message).toMatch(message);
    expect((await sandbox.request('GET', '/_sandbox/scenarios')).json.data).toEqual([]);
  });

  it('answers only callers with the control token when one is set', async () => {
    sandbox = createTestSandbox({ controlToken: 'ctl_secret_1' });
    const refused = await sandbox.request('GET', '/_sandbox/scenarios');
    expect(refused.status).toBe(401);
    expect(refused.json.error.code).toBe('control_forbidden');
    expect((await sandbox.request('POST', '/_sandbox/scenarios', { entries: [{ outcome: 'approve' }] })).status).toBe(401);
    expect((await sandbox.request('GET', '/_sandbox/scenarios', undefined, { authorization: 'Bearer ctl_secret_1' })).status).toBe(200);
  });

  it('refuses a body that is not JSON', async () => {
    sandbox = createTestSandbox();
    const res = await sandbox.request('POST', '/_sandbox/scenarios', '{"entries": [', { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_json');
  });
});

describe('--scenario FILE', () => {
  it('3ds-fails-then-approves: the first payment fails 3-D Secure even with the right OTP, the retry is approved', async () => {
    sandbox = createTestSandbox({ scenario: scenarioFile('3ds-fails-then-approves') });
    const first = await pay();
    expect(first.json.order_status).toBe('0');
    const failed = await authenticate(first.json.transID, 'approve');
    expect(failed.json.order_status).toBe('24');
    expect(failed.json.response).toMatch(/^authentication_failed: /);

    const retry = await pay();
    expect(retry.json.order_status).toBe('0');
    expect((await authenticate(retry.json.transID, 'approve')).json.order_status).toBe('25');
    const listed = await sandbox.request('GET', '/_sandbox/scenarios');
    expect(listed.json.data.map((e: { scenario: string; remaining: number }) => [e.scenario, e.remaining])).toEqual([
      ['3ds-fails-then-approves', 0],
      ['3ds-fails-then-approves', 0],
    ]);
  });

  it('outcomes-by-amount: magic amounts decide, other amounts follow the test card', async () => {
    sandbox = createTestSandbox({ scenario: scenarioFile('outcomes-by-amount') });
    expect((await pay({ bill_amt: '51.00', ccno: '4242424242424242' })).json.response).toMatch(/^insufficient_funds/);
    expect((await pay({ bill_amt: '51.00', ccno: '4242424242424242' })).json.response).toMatch(/^insufficient_funds/);
    expect((await pay({ bill_amt: '10.00', ccno: '4242424242424242' })).json.order_status).toBe('25');
  });

  it('a scenario file that is not valid names the file and the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ entries: [{ outcome: 'decline:nope' }] }));
    expect(() => createTestSandbox({ scenario: bad })).toThrow(/--scenario .*bad\.json: .*outcome must be one of/);
    expect(() => createTestSandbox({ scenario: join(dir, 'missing.json') })).toThrow(
      /--scenario: scenario file .*missing\.json does not exist; shipped scenarios, given by name: 3ds-fails-then-approves, /,
    );
    writeFileSync(bad, '{"entries": [');
    expect(() => createTestSandbox({ scenario: bad })).toThrow(/--scenario .*bad\.json is not valid JSON: /);
  });
});
