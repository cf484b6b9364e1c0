// trigger() of startSandbox(): the control route's trigger from a test suite, with set fields that
// the webhook carries, the API's own errors for bad values, and refusals on an existing payment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxError, startSandbox, type SandboxHandle } from '../../src/index.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { waitFor } from '../helpers/wait-for.js';

let sandbox: SandboxHandle;
let merchant: FakeMerchant;

beforeAll(async () => {
  merchant = await startFakeMerchant();
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
  await merchant.close();
});

describe('trigger()', () => {
  it('applies set fields; the delivered webhook carries them', async () => {
    const result = await sandbox.trigger('payment.captured', {
      set: { amount: 1500, 'metadata.order_id': 'ord_42' },
      to: `${merchant.url}/hook`,
    });
    expect(result.type).toBe('payment.captured');
    const [hook] = await waitFor(() => merchant.at('/hook').length > 0 && merchant.at('/hook'), 'the triggered event');
    expect(JSON.parse(hook!.body)).toMatchObject({
      id: result.event.id,
      data: { payment_id: result.related.payment_id, amount: 1500, metadata: { order_id: 'ord_42' } },
    });
  });

  it("a bad value is the API's own error naming the field", async () => {
    const failed = sandbox.trigger('refund.succeeded', { set: { amount: 0 } });
    await expect(failed).rejects.toBeInstanceOf(SandboxError);
    await expect(failed).rejects.toMatchObject({
      param: 'set.amount',
      message: expect.stringMatching(/^amount is invalid: /),
    });
    await expect(sandbox.trigger('payment.exploded')).rejects.toMatchObject({ param: 'type' });
  });

  it('refuses a field that cannot change on the payment given, and applies one that can', async () => {
    const authorized = await sandbox.trigger('payment.authorized');
    const payment = authorized.related.payment_id!;
    await expect(sandbox.trigger('payment.declined', { payment, set: { amount: 100 } })).rejects.toMatchObject({
      param: 'set.amount',
      message: expect.stringContaining(`amount cannot change on payment ${payment}`),
    });
    const captured = await sandbox.trigger('payment.captured', { payment, set: { amount: 600 } });
    expect(captured.event.data).toMatchObject({ amount_captured: 600 });
  });
});
