// requests() and expectRequested() of startSandbox(): the journal from a test suite, and an
// assertion on what the shop sent that fails with the closest requests and what differs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestExpectationError, SandboxError, startSandbox, type SandboxHandle } from '../../src/index.js';

let sandbox: SandboxHandle;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

async function pay(body: Record<string, unknown>) {
  const res = await fetch(`${sandbox.url}/v1/payments`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${sandbox.credentials.apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': `lib-${body.amount}`,
    },
    body: JSON.stringify({ currency: 'EUR', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' }, ...body }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { id: string };
}

describe('requests() and expectRequested()', () => {
  it('requests() returns the journal, masked and filtered', async () => {
    const payment = await pay({ amount: 1050 });
    const [entry] = sandbox.requests({ payment: payment.id, idempotencyKey: 'lib-1050' });
    expect(entry).toMatchObject({ method: 'POST', path: '/v1/payments', status: 200, idempotency_key: 'lib-1050' });
    expect(entry?.request.body).toContain('424242******4242');
    expect(entry?.request.body).not.toContain('4242424242424242');
    expect(() => sandbox.requests({ status: 'oops' })).toThrow(SandboxError);
  });

  it('expectRequested() resolves on a partial body match, and throws the near misses when none matches', async () => {
    await pay({ amount: 2000, metadata: { order_id: 'o-9' } });
    await expect(
      sandbox.expectRequested({ method: 'POST', path: '/v1/payments', body: { metadata: { order_id: 'o-9' } } }),
    ).resolves.toMatchObject({
      ok: true,
      matched: 1,
    });
    const failed = sandbox.expectRequested({ method: 'POST', path: '/v1/payments', body: { amount: 2500 } });
    await expect(failed).rejects.toBeInstanceOf(RequestExpectationError);
    await expect(failed).rejects.toMatchObject({ message: expect.stringContaining('body.amount: expected 2500, got 2000') });
    const error = (await failed.catch((e: unknown) => e)) as RequestExpectationError;
    expect(error.result.near_misses[0]?.differences).toEqual([{ field: 'body.amount', expected: 2500, actual: 2000 }]);
  });
});
