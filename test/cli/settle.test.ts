// `sandbox settle` and `sandbox settlements` through the program object against a real sandbox,
// with a registered webhook endpoint receiving the settlement events.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AUTH } from '../helpers/payments-api.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { waitFor } from '../helpers/wait-for.js';
import { runCli } from '../helpers/cli-harness.js';

const env = useSandboxWithMerchant({ each: true, flags: { retry: 'none' } });

const cli = (...args: string[]) => runCli([...args, '--url', env.sandbox.url]);
const api = async (path: string, body: unknown) => (await env.http.post(path, body, AUTH)).json;

describe('sandbox settle', () => {
  it('prints one line per settlement with gross, fees, refunds and net, and the payout time', async () => {
    await api('/v1/payments', { amount: 1000, currency: 'EUR', token: 'tok_visa' });
    await api('/v1/payments', { amount: 2000, currency: 'EUR', token: 'tok_visa' });
    const { out, error } = await cli('settle');
    expect(error).toBeUndefined();
    // Fees: 14 + 25 and 28 + 25 minor units.
    expect(out).toMatch(
      /^st_\w+ {2}mer_sandbox {2}EUR {2}2 payments {2}gross 30\.00 {2}fees 0\.92 {2}refunds 0\.00 {2}net 29\.08 {2}pays out \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/,
    );
    expect((await cli('settle')).out).toBe(
      'nothing to settle: every captured payment is already in a settlement, and nothing is owed back',
    );
  });

  it('--pay-after 0s pays at once; the endpoint gets settlement.created and settlement.paid, signed', async () => {
    const endpoint = await api('/v1/webhook_endpoints', {
      url: `${env.merchant.url}/settlements`,
      events: ['settlement.created', 'settlement.paid'],
    });
    await api('/v1/payments', { amount: 1000, currency: 'EUR', token: 'tok_visa' });
    const [s] = JSON.parse((await cli('settle', '--pay-after', '0s', '--json')).out);
    expect(s).toMatchObject({ status: 'paid', count: 1, gross: 1000, fees: 39, net: 961 });
    const hooks = await waitFor(
      () => env.merchant.at('/settlements').length >= 2 && env.merchant.at('/settlements'),
      'two settlement webhooks',
    );
    const events = hooks.map((h) => JSON.parse(h.body));
    expect(events.map((e) => e.event).sort()).toEqual(['settlement.created', 'settlement.paid']);
    expect(events.every((e) => e.data.settlement_id === s.id)).toBe(true);
    for (const h of hooks)
      expect(h.headers['x-sandbox-signature']).toBe(`sha256=${createHmac('sha256', endpoint.secret).update(h.body).digest('hex')}`);
  });

  it('settlements lists them, and settlements <id> shows the payments with fee and net', async () => {
    const payment = await api('/v1/payments', { amount: 1050, currency: 'EUR', token: 'tok_visa' });
    const [s] = JSON.parse((await cli('settle', '--json')).out);
    expect((await cli('settlements')).out).toContain(
      `${s.id}  mer_sandbox  EUR  1 payment  gross 10.50  fees 0.40  refunds 0.00  net 10.10`,
    );
    const shown = (await cli('settlements', s.id)).out.split('\n');
    expect(shown[2]).toMatch(/^FAMILY\s+PAYMENT\s+GROSS\s+FEE\s+REFUNDED\s+NET$/);
    expect(shown[3]).toMatch(new RegExp(`^v1\\s+${payment.id}\\s+10\\.50\\s+0\\.40\\s+0\\.00\\s+10\\.10$`));
    expect((await cli('clock', 'advance', '2d')).error).toBeUndefined();
    expect(JSON.parse((await cli('settlements', s.id, '--json')).out).status).toBe('paid');
  });

  it('a refund after the payout is clawed back by the next settle, shown with its own table', async () => {
    const payment = await api('/v1/payments', { amount: 1000, currency: 'EUR', token: 'tok_visa' });
    const [first] = JSON.parse((await cli('settle', '--json')).out);
    expect((await api('/v1/refunds', { payment_id: payment.id, amount: 250 })).status).toBe('pending');
    expect((await cli('clock', 'advance', '2s')).error).toBeUndefined();
    const { out } = await cli('settle');
    expect(out).toMatch(
      /^st_\w+ {2}mer_sandbox {2}EUR {2}0 payments {2}gross 0\.00 {2}fees 0\.00 {2}refunds 0\.00 {2}clawbacks -2\.50 {2}net -2\.50 {2}pays out /,
    );
    const id = out.split(' ')[0]!;
    expect(id).not.toBe(first.id);
    const shown = (await cli('settlements', id)).out.split('\n');
    expect(shown.slice(1)).toEqual([
      '',
      'clawbacks (refunds and lost chargebacks after an earlier payout):',
      expect.stringMatching(/^FAMILY\s+PAYMENT\s+KIND\s+CHARGEBACK\s+AMOUNT$/),
      expect.stringMatching(new RegExp(`^v1\\s+${payment.id}\\s+refund\\s+-\\s+-2\\.50$`)),
    ]);
  });

  it('bad flags are one clear line', async () => {
    expect((await cli('settle', '--pay-after', 'soon')).error).toMatch(
      /pay_after must be a duration such as "2d".*\(400 parameter_invalid\)$/,
    );
    expect((await cli('settle', '--currency', 'EURO')).error).toMatch(/ISO 4217.*\(400 parameter_invalid\)$/);
    expect((await cli('settlements', 'st_nope')).error).toMatch(/no settlement st_nope.*\(404 resource_missing\)$/);
  });
});
