// `sandbox chargeback`, `sandbox chargebacks` through the program object against a real sandbox.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { runCli } from '../helpers/cli-harness.js';
import { api } from '../helpers/http.js';
import { AUTH } from '../helpers/payments-api.js';

let sandbox: RunningServer;
beforeEach(async () => {
  sandbox = await startTestServer({ retry: 'none' });
});
afterEach(() => sandbox.close());

const cli = (...args: string[]) => runCli([...args, '--url', sandbox.url]);

async function s2sPayment(ccno = '4242424242424242'): Promise<string> {
  return (await api(sandbox.url).post('/api/s2s', s2sBody({ ccno }))).json.transID;
}

async function v1Payment(): Promise<string> {
  return (await api(sandbox.url, AUTH).post('/v1/payments', { amount: 1050, currency: 'EUR', token: 'tok_visa' })).json.id;
}

describe('sandbox chargeback', () => {
  it('opens one on an S2S transID with --reason, then --win by transID', async () => {
    const transID = await s2sPayment();
    const opened = await cli('chargeback', transID, '--reason', 'product_not_received');
    expect(opened.error).toBeUndefined();
    const id = /chargeback (dp_\w+) opened/.exec(opened.out)?.[1];
    expect(opened.out).toContain(`opened on transaction ${transID}: 10.50 EUR, reason product_not_received (chargeback.created sent)`);
    expect(opened.out).toContain(`sandbox chargeback ${id} --win`);
    const won = await cli('chargeback', transID, '--win');
    expect(won.out).toBe(`chargeback ${id} won: 10.50 EUR on transaction ${transID}; it is reinstated (chargeback.won sent)`);
  });

  it('opens one on a payment with --amount and --json, then --lose by chargeback id', async () => {
    const paymentId = await v1Payment();
    const opened = JSON.parse((await cli('chargeback', paymentId, '--amount', '500', '--json')).out);
    expect(opened).toMatchObject({ family: 'v1', payment_id: paymentId, amount: 500, reason: 'fraudulent', status: 'open' });
    const lost = await cli('chargeback', opened.id, '--lose');
    expect(lost.out).toContain(`chargeback ${opened.id} lost: 5.00 EUR on payment ${paymentId}; it stays charged back`);
  });

  it('the chargeback card opens one after sandbox clock advance 30s; chargebacks lists it', async () => {
    const transID = await s2sPayment('4000000000000259');
    expect(JSON.parse((await cli('chargebacks', '--json')).out)).toEqual([]);
    expect((await cli('clock', 'advance', '30s')).error).toBeUndefined();
    const list = JSON.parse((await cli('chargebacks', '--json')).out);
    expect(list).toMatchObject([{ transID, status: 'open', reason: 'fraudulent' }]);
    const table = (await cli('chargebacks')).out.split('\n');
    expect(table[0]).toMatch(/^ID\s+FAMILY\s+PAYMENT\s+AMOUNT\s+REASON\s+STATUS\s+CREATED$/);
    expect(table[1]).toMatch(new RegExp(`^dp_\\w+\\s+s2s\\s+${transID}\\s+10.50 EUR\\s+fraudulent\\s+open\\s+`));
  });

  it('says clearly what is wrong', async () => {
    const paymentId = await v1Payment();
    expect((await cli('chargeback', paymentId, '--win', '--lose')).error).toBe('pass --win or --lose, not both');
    expect((await cli('chargeback', 'dp_abc')).error).toBe('dp_abc is a chargeback already; add --win or --lose to decide it');
    expect((await cli('chargeback', 'order-17')).error).toContain('neither a /v1/ payment id (pay_...) nor an S2S transID');
    expect((await cli('chargeback', paymentId, '--amount', '10.50')).error).toContain('--amount is in minor units');
    expect((await cli('chargeback', paymentId, '--reason', 'angry')).error).toMatch(
      /reason is invalid: expected one of fraudulent, .*\(400 parameter_invalid\)$/,
    );
    expect((await cli('chargeback', paymentId, '--win')).error).toBe(
      `${paymentId} has no open chargeback; open one first (POST /_sandbox/chargebacks or \`sandbox chargeback ${paymentId}\`) (409 invalid_state)`,
    );
    expect((await cli('chargeback', 'pay_nope')).error).toMatch(/no payment pay_nope.*\(404 resource_missing\)$/);
  });
});
