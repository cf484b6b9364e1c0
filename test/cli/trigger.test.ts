// `sandbox trigger` through the program object against a real sandbox, with a fake merchant for --to.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AUTH } from '../helpers/payments-api.js';
import { CREDS } from '../helpers/test-sandbox.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { waitFor } from '../helpers/wait-for.js';
import { runCli } from '../helpers/cli-harness.js';

const env = useSandboxWithMerchant({ each: true, flags: { retry: 'none' } });

const cli = (...args: string[]) => runCli([...args, '--url', env.sandbox.url]);

describe('sandbox trigger', () => {
  it('prints the event, every event recorded on the way, and the related objects', async () => {
    const { out, error } = await cli('trigger', 'chargeback.won');
    expect(error).toBeUndefined();
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^triggered chargeback\.won evt_\w+ \(payment_id pay_\w+, chargeback_id dp_\w+\)$/);
    // One line per event recorded, the asked-for one starred.
    expect(lines.slice(1).map((l) => l.trim().replace(/\s+evt_\w+\s+\S+$/, ''))).toEqual([
      'payment.authorized',
      'payment.captured',
      'chargeback.created',
      '* chargeback.won',
    ]);
    const paymentId = /payment_id (pay_\w+)/.exec(lines[0]!)![1];
    expect((await env.http.get(`/v1/payments/${paymentId}`, AUTH)).json.status).toBe('captured');
  });

  it('--to delivers exactly that event, signed, to the URL; --json gives the whole answer', async () => {
    const result = JSON.parse((await cli('trigger', 'payment.declined', '--to', `${env.merchant.url}/hook`, '--json')).out);
    expect(result.delivery).toMatchObject({ url: `${env.merchant.url}/hook`, manual: true });
    const [hook] = await waitFor(() => env.merchant.at('/hook').length > 0 && env.merchant.at('/hook'), 'the triggered event');
    expect(JSON.parse(hook!.body)).toMatchObject({
      event: 'payment.declined',
      id: result.event.id,
      data: { payment_id: result.related.payment_id, status: 'declined', decline_code: 'card_declined' },
    });
    expect(hook!.headers['x-sandbox-signature']).toBe('sha256=' + createHmac('sha256', CREDS.secret).update(hook!.body).digest('hex'));
    expect(env.merchant.received).toHaveLength(1);
  });

  it('--payment works on an existing payment, and says why when its state cannot produce the event', async () => {
    const { id } = (await env.http.post('/v1/payments', { amount: 700, currency: 'EUR', token: 'tok_visa', capture: false }, AUTH)).json;
    expect((await cli('trigger', 'payment.captured', '--payment', id)).out).toMatch(
      new RegExp(`^triggered payment\\.captured evt_\\w+ \\(payment_id ${id}\\)`),
    );
    expect((await cli('trigger', 'payment.captured', '--payment', id)).error).toBe(
      `payment ${id} is captured; only a payment that is authorized can be captured (409 invalid_state)`,
    );
    expect((await cli('trigger', 'payment.captured', '--payment', 'pay_nope')).error).toMatch(
      /no payment or transaction pay_nope.*\(404 resource_missing\)$/,
    );
  });

  it('an unknown event type lists the known ones', async () => {
    const { error } = await cli('trigger', 'payment.exploded');
    expect(error).toMatch(
      /^type "payment\.exploded" is not an event name;( did you mean [^?]+\?)? use one of: payment\.requires_action, .*checkout\.session\.expired \(400 parameter_invalid\)$/,
    );
    expect((await cli('trigger', 'payment.authorised')).error).toMatch(
      /^type "payment\.authorised" is not an event name; did you mean payment\.authorized\? use one of: /,
    );
  });
});
