// `sandbox trigger` through the program object against a real sandbox, with a fake merchant for --to.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AUTH } from '../helpers/payments-api.js';
import { CREDS } from '../helpers/test-sandbox.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { waitFor } from '../helpers/wait-for.js';
import { runCli } from '../helpers/cli-harness.js';
import { runBuiltCli } from '../helpers/cli-sandbox.js';
import { SETTABLE_FIELDS, TRIGGER_FIELDS } from '../../src/domain/trigger-fields.js';
import { EVENT_TYPE_NAMES } from '../../src/domain/event-types.js';

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
    expect(hook!.headers['x-sandbox-signature']).toBe(`sha256=${createHmac('sha256', CREDS.secret).update(hook!.body).digest('hex')}`);
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
      new RegExp(
        `^type "payment\\.exploded" is not an event name;( did you mean [^?]+\\?)? use one of: ${EVENT_TYPE_NAMES.join(', ').replaceAll('.', '\\.')} \\(400 parameter_invalid\\)$`,
      ),
    );
    expect((await cli('trigger', 'payment.authorised')).error).toMatch(
      /^type "payment\.authorised" is not an event name; did you mean payment\.authorized\? use one of: /,
    );
  });

  it('--set fields go into the object, are judged by the API, and are refused where they cannot change', async () => {
    const made = await cli(
      'trigger',
      'payment.captured',
      '--set',
      'amount=1500',
      '--set',
      'metadata.order_id=ord_42',
      '--set',
      'reference="42"',
      '--to',
      `${env.merchant.url}/hook`,
      '--json',
    );
    expect(made.error).toBeUndefined();
    const [hook] = await waitFor(() => env.merchant.at('/hook').length > 0 && env.merchant.at('/hook'), 'the triggered event');
    // 1500 parses as JSON (a number), ord_42 does not (text), "42" is a JSON string.
    expect(JSON.parse(hook!.body).data).toMatchObject({ amount: 1500, reference: '42', metadata: { order_id: 'ord_42' } });
    expect((await cli('trigger', 'payment.captured', '--set', 'metadata.order_id=42')).error).toBe(
      'metadata.order_id must be a string (metadata is a flat map of strings), got a number; send it as text (400 parameter_invalid)',
    );
    const paymentId = JSON.parse(made.out).related.payment_id;
    expect((await cli('trigger', 'payment.canceled', '--payment', paymentId, '--set', 'amount=100')).error).toMatch(
      new RegExp(`^amount cannot change on payment ${paymentId}, which exists already; .* \\(400 parameter_invalid\\)$`),
    );
    expect((await cli('trigger', 'refund.succeeded', '--payment', paymentId, '--set', 'amount=500')).out).toMatch(
      /^triggered refund\.succeeded /,
    );
    expect((await cli('trigger', 'payment.captured', '--set', 'amount')).error).toMatch(/^--set takes field=value/);
  });

  it('--help lists the fields --set takes for every event, from the trigger table', async () => {
    const help = (await runBuiltCli(['trigger', '--help'])).stdout;
    for (const [type, rule] of Object.entries(TRIGGER_FIELDS)) {
      const line = help.split('\n').find((l) => l.trim().startsWith(`${type} `));
      expect(line, type).toBeDefined();
      if (rule.object) expect(line).toContain(`${rule.object}: ${SETTABLE_FIELDS[rule.object].join(', ')}`);
      else expect(line).toContain('(none)');
    }
    expect(help).toMatch(/payment\.captured .*with --payment: amount$/m);
  });
});
