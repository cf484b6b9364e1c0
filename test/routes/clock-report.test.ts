// POST /_sandbox/clock/advance answers what the jump caused (issue 33): each job in causal order
// with the events it published and their deliveries, the charges on stored tokens with the
// scripted outcome each took; bad durations and waits are a 400 naming the field.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH } from '../helpers/payments-api.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

const advance = (body: Record<string, unknown>) => sb.request('POST', '/_sandbox/clock/advance', body);

describe('the advance report', () => {
  it('lists each job that ran, in the order they fell due, with its events and their deliveries', async () => {
    const token = (
      await sb.request('POST', '/v1/tokens', { card: { number: '4000000000000176', exp_month: 1, exp_year: 2031, cvc: '123' } }, AUTH)
    ).json.id;
    const held = (
      await sb.request(
        'POST',
        '/v1/payments',
        { amount: 800, currency: 'EUR', token: 'tok_visa', capture: false, webhook_url: 'https://shop.example/hooks' },
        AUTH,
      )
    ).json.id;
    const res = await advance({ duration: '80d' });
    expect(res.status, res.text).toBe(200);
    const { report } = res.json;
    expect(report.steps.map((s: { job: string; subject: string }) => `${s.job} ${s.subject}`)).toEqual([
      `payment.lapse ${held}`,
      `token.expiring ${token}`,
      `token.renew ${token}`,
    ]);
    expect(report.steps[0]).toMatchObject({ kind: 'job', at: '2026-01-22T12:00:00.000Z' });
    expect(report.steps[0].events).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        type: 'payment.expired',
        resource_id: held,
        at: '2026-01-22T12:00:00.000Z',
        deliveries: [{ id: expect.stringMatching(/^whd_/), url: 'https://shop.example/hooks', first_attempt: null }],
      },
    ]);
    expect(report.steps[2].events.map((e: { type: string }) => e.type)).toEqual(['token.updated']);
    expect(report).toMatchObject({ scripted_outcomes: 0, events: 3, deliveries: 1, failed: 0, unanswered: 1 });
    expect(res.json).toMatchObject({ jobs_run: 3, from: '2026-01-15T12:00:00.000Z', now: '2026-04-05T12:00:00.000Z' });
  });

  it('a jump that causes nothing reports nothing', async () => {
    const res = await advance({ duration: '1h' });
    expect(res.json.report).toEqual({ steps: [], scripted_outcomes: 0, events: 0, deliveries: 0, failed: 0, unanswered: 0, waited_ms: 0 });
  });

  it.each([
    [{ duration: '-30d' }, 'duration', 'only moves forward'],
    [{ duration: '3651d' }, 'duration', 'at most 3650d'],
    [{ duration: '30' }, 'duration', 'no unit'],
    [{ duration: '30d', wait: '1h' }, 'wait', 'at most 5m'],
    [{ duration: '30d', wait: 'soon' }, 'wait', 'wait must be a duration'],
    [{ duration: '30d', report: true }, 'report', ''],
  ])('%j is a 400 naming %s', async (body, param, says) => {
    const before = (await sb.request('GET', '/_sandbox/clock')).json.now;
    const res = await advance(body);
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe(param);
    expect(res.json.error.message).toContain(says);
    expect((await sb.request('GET', '/_sandbox/clock')).json.now).toBe(before);
  });
});
