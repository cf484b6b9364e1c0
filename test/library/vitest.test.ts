// startSandbox() as a vitest fixture: what a merchant's own suite does with the handle.
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, verifySignature, SandboxError, type SandboxHandle } from '../../src/index.js';
import type { S2SPaymentView } from '../../src/views/s2s.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { errorMessage } from '../../src/errors.js';

const scenarioFile = fileURLToPath(new URL('../../fixtures/scenarios/3ds-fails-then-approves.json', import.meta.url));

let sandbox: SandboxHandle;
let merchant: FakeMerchant;
let order = 0;

beforeAll(async () => {
  merchant = await startFakeMerchant();
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
  await merchant.close();
});
afterEach(async () => {
  await sandbox.reset();
});

/** POSTs an S2S payment to a sandbox; the webhook goes to the fake merchant. */
async function pay(target: SandboxHandle, overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await fetch(`${target.url}/api/s2s`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      public_key: target.credentials.publicKey,
      terNO: target.credentials.terNO,
      bill_amt: '25.00',
      bill_currency: 'EUR',
      product_name: 'Tea',
      reference: `lib-${++order}`,
      webhook_url: `${merchant.url}/webhooks`,
      return_url: `${merchant.url}/return`,
      mop: 'CC',
      ccno: '4242424242424242',
      ccvv: '123',
      month: '12',
      year: '30',
      ...overrides,
    }),
  });
  return { status: res.status, json: (await res.json()) as S2SPaymentView };
}

describe('startSandbox()', () => {
  it('answers on a free port with the seeded credentials, typed', async () => {
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.url).not.toMatch(/:4010$/);
    expect(sandbox.credentials).toMatchObject({
      merchantId: 'mer_sandbox',
      terNO: 1001,
      publicKey: 'pk_test_1001',
      privateKey: 'pv_test_1001',
      apiKey: 'sk_test_sandbox',
      webhookSecret: 'whsec_test_sandbox',
    });
    expect(sandbox.credentials.merchants.map((m) => m.merchantId)).toEqual(['mer_sandbox', 'mer_other']);
    const health = await fetch(`${sandbox.url}/_sandbox/health`);
    expect(health.status).toBe(200);
  });

  it('waitForDelivery resolves with the delivered webhook, its attempts and parsed body', async () => {
    const { json } = await pay(sandbox);
    expect(json.order_status).toBe('25');
    const delivery = await sandbox.waitForDelivery({ event: 'payment.authorized', url: `${merchant.url}/webhooks` });
    expect(delivery).toMatchObject({ event: 'payment.authorized', status: 'succeeded', merchantId: 'mer_sandbox' });
    expect(delivery.body).toMatchObject({ transID: json.transID, order_status: '25', status: 'Test Approved' });
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ attempt: 1, responseStatus: 200, errorKind: null });
    // The signature covers the raw body with the handle's webhook secret.
    const signature = delivery.attempts[0]!.requestHeaders['x-sandbox-signature'];
    expect(verifySignature(signature, sandbox.credentials.webhookSecret, delivery.rawBody)).toBe(true);
  });

  it('authenticate() completes a 3-D Secure challenge without a browser', async () => {
    const { json } = await pay(sandbox, { ccno: '4000000000003220' });
    expect(json.order_status).toBe('0');
    const result = await sandbox.authenticate(json.transID, 'approve');
    expect(result.state).toBe('passed');
    expect(result.redirectUrl).toContain(`transID=${json.transID}`);
    const delivery = await sandbox.waitForDelivery({ event: 'payment.authorized', match: (d) => d.body.transID === json.transID });
    expect(delivery.body.order_status).toBe('25');
    await expect(sandbox.authenticate(json.transID, 'approve')).rejects.toThrow(/already passed/);
    await expect(sandbox.authenticate('999', 'approve')).rejects.toThrow(SandboxError);
  });

  it('authenticate() also completes a /v1/ payment challenge', async () => {
    const res = await fetch(`${sandbox.url}/v1/payments`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${sandbox.credentials.apiKey}`,
        'content-type': 'application/json',
        'X-Sandbox-Outcome': 'challenge',
      },
      body: JSON.stringify({
        amount: 1500,
        currency: 'EUR',
        webhook_url: `${merchant.url}/v1-hooks`,
        return_url: `${merchant.url}/return`,
      }),
    });
    const payment = (await res.json()) as { id: string; status: string };
    expect(payment.status).toBe('requires_action');
    expect((await sandbox.authenticate(payment.id, 'approve')).state).toBe('passed');
    const delivery = await sandbox.waitForDelivery({ event: 'payment.authorized', url: `${merchant.url}/v1-hooks` });
    expect(delivery.body).toMatchObject({ event: 'payment.authorized', data: expect.objectContaining({ payment_id: payment.id }) });
  });

  it('waitForDelivery rejects with a readable list of what did arrive', async () => {
    const failing = await startFakeMerchant({ fallback: 500 });
    try {
      await pay(sandbox, { webhook_url: `${failing.url}/hooks` });
      const failed = await sandbox.waitForDelivery({ event: 'payment.authorized', status: 'failed' });
      expect(failed.attempts[0]!.responseStatus).toBe(500);
      const error = await sandbox.waitForDelivery({ event: 'payment.declined', timeoutMs: 200 }).catch((err: Error) => err);
      expect(error).toBeInstanceOf(Error);
      expect(errorMessage(error)).toMatch(
        /^waitForDelivery: no succeeded delivery of payment\.declined within 200 ms\. Deliveries so far \(1\):\n/,
      );
      expect(errorMessage(error)).toMatch(
        /whd_\w+ payment\.authorized -> http:\/\/127\.0\.0\.1:\d+\/hooks failed after 1 attempt \(last answer 500\)/,
      );
    } finally {
      await failing.close();
    }
  });

  it('waitForDelivery rejects at once, with the attempt log, when the only matching delivery failed for good', async () => {
    const failing = await startFakeMerchant({ fallback: 500 });
    try {
      await pay(sandbox, { webhook_url: `${failing.url}/hooks` });
      await sandbox.waitForDelivery({ event: 'payment.authorized', status: 'failed' });
      const started = Date.now();
      const error = await sandbox.waitForDelivery({ event: 'payment.authorized', timeoutMs: 60_000 }).catch((err: Error) => err);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(errorMessage(error)).toMatch(
        /^waitForDelivery: no succeeded delivery of payment\.authorized will come: the only matching delivery failed for good \(no retries left\)\. Attempts:\n {2}whd_\w+ payment\.authorized -> http:\/\/127\.0\.0\.1:\d+\/hooks failed after 1 attempt \(last answer 500\)\n {4}#1 \d{4}-\d\d-\d\dT\S+Z answered 500: nope$/,
      );
    } finally {
      await failing.close();
    }
  });

  it('waitForDelivery rejects at once for a misspelt event, naming the closest one', async () => {
    // A JavaScript caller, or a name from outside the code: TypeScript refuses it already.
    // @ts-expect-error payment.authorised is not an event name
    const error = await sandbox.waitForDelivery({ event: 'payment.authorised', timeoutMs: 60_000 }).catch((err: Error) => err);
    expect(error).toBeInstanceOf(SandboxError);
    expect(errorMessage(error)).toMatch(
      /^waitForDelivery: event "payment\.authorised" is not an event name; did you mean payment\.authorized\? use one of: /,
    );
  });

  it('deliveries() lists every delivery, newest last', async () => {
    const first = await pay(sandbox);
    const second = await pay(sandbox, { ccno: '4000000000000002' });
    await sandbox.waitForDelivery({ event: 'payment.declined' });
    await sandbox.waitForDelivery({ event: 'payment.authorized' });
    expect(sandbox.deliveries().map((d) => [d.event, d.body.transID])).toEqual([
      ['payment.authorized', first.json.transID],
      ['payment.declined', second.json.transID],
    ]);
  });

  it('clock.advance() moves sandbox time and runs what fell due (a challenge expires)', async () => {
    const { json } = await pay(sandbox, { ccno: '4000000000003220' });
    const before = sandbox.clock.now();
    expect(sandbox.clock.advance('15m')).toBeGreaterThanOrEqual(before + 15 * 60_000);
    const delivery = await sandbox.waitForDelivery({ event: 'payment.expired' });
    expect(delivery.body).toMatchObject({ transID: json.transID, order_status: '22' });
    expect(() => sandbox.clock.advance('soon')).toThrow(/clock\.advance takes a duration/);
    expect(() => sandbox.clock.advance(-5)).toThrow(SandboxError);
  });

  it('reset() empties the state but keeps the credentials working', async () => {
    await pay(sandbox, { reference: 'reused' });
    await sandbox.waitForDelivery({ event: 'payment.authorized' });
    const counts = await sandbox.reset();
    expect(counts).toMatchObject({ transactions: 0, deliveries: 0, merchants: 2 });
    expect(sandbox.deliveries()).toEqual([]);
    expect((await pay(sandbox, { reference: 'reused' })).json.order_status).toBe('25');
  });

  it('the X-Sandbox-Outcome header works over the real socket', async () => {
    const { json } = await pay(sandbox, {}, { 'X-Sandbox-Outcome': 'decline:insufficient_funds' });
    expect(json.order_status).toBe('24');
    const delivery = await sandbox.waitForDelivery({ event: 'payment.declined' });
    expect(String(delivery.body.status)).toBe('Test Declined');
  });
});

describe('several sandboxes in one process', () => {
  it('do not interfere: each sees only its own payments and deliveries', async () => {
    const [a, b] = await Promise.all([startSandbox(), startSandbox()]);
    try {
      expect(a.url).not.toBe(b.url);
      const [payA, payB] = await Promise.all([
        pay(a, { reference: 'same-ref' }),
        pay(b, { reference: 'same-ref', ccno: '4000000000000002' }),
      ]);
      expect(payA.json.order_status).toBe('25');
      expect(payB.json.order_status).toBe('24');
      await a.waitForDelivery({ event: 'payment.authorized' });
      await b.waitForDelivery({ event: 'payment.declined' });
      expect(a.deliveries().map((d) => d.body.transID)).toEqual([payA.json.transID]);
      expect(b.deliveries().map((d) => d.body.transID)).toEqual([payB.json.transID]);
      // Neither knows the other's transaction.
      expect((await fetch(`${a.url}/_sandbox/transactions/${payB.json.transID}`)).status).toBe(404);
      await b.reset();
      expect(a.deliveries()).toHaveLength(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('startSandbox(options)', () => {
  it('autoAuthenticate completes every challenge by itself', async () => {
    const auto = await startSandbox({ autoAuthenticate: 'approve' });
    try {
      const { json } = await pay(auto, { ccno: '4000000000003220' });
      expect(json.order_status).toBe('0');
      const delivery = await auto.waitForDelivery({ event: 'payment.authorized' });
      expect(delivery.body.transID).toBe(json.transID);
    } finally {
      await auto.close();
    }
  });

  it('scenario loads a scenario file', async () => {
    const scripted = await startSandbox({ scenario: scenarioFile });
    try {
      const first = await pay(scripted);
      await scripted.authenticate(first.json.transID, 'approve');
      const declined = await scripted.waitForDelivery({ event: 'payment.declined' });
      expect(String(declined.body.status)).toBe('Test Declined');
    } finally {
      await scripted.close();
    }
  });

  it('a bad option rejects with the flag named, and no server is left running', async () => {
    await expect(startSandbox({ retry: 'sometimes' })).rejects.toThrow(/--retry must be dev, realistic, none or a list/);
    await expect(startSandbox({ autoAuthenticate: 'later' })).rejects.toThrow(/--auto-authenticate must be approve or decline/);
  });

  it('an unknown option rejects by name with the closest one, instead of being dropped silently', async () => {
    const misspelt = { retries: 'none' } as unknown as Parameters<typeof startSandbox>[0];
    const error = await startSandbox(misspelt).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).code).toBe('parameter_unknown');
    expect(errorMessage(error)).toMatch(/^startSandbox\(\) has no option "retries"; did you mean retry\? its options are port, host, db, /);
    const other = await startSandbox({ dbPath: ':memory:' } as unknown as Parameters<typeof startSandbox>[0]).catch((err: unknown) => err);
    expect(errorMessage(other)).toContain('has no option "dbPath"');
  });

  it('close() rejects a wait still in progress', async () => {
    const short = await startSandbox();
    const waiting = short.waitForDelivery({ event: 'payment.authorized', timeoutMs: 10_000 });
    await short.close();
    await expect(waiting).rejects.toThrow(/closed while waiting/);
  });
});

describe('createMerchant(), reset({ merchant }) and deleteMerchant()', () => {
  it('makes a merchant of its own whose webhooks are signed with its own secret', async () => {
    const mine = sandbox.createMerchant({ name: 'Worker 1' });
    expect(mine).toMatchObject({
      name: 'Worker 1',
      currency: 'EUR',
      terNO: mine.terminals[0]!.terNO,
      publicKey: mine.terminals[0]!.publicKey,
      apiKey: mine.apiKeys[0],
    });
    expect(mine.merchantId).toMatch(/^mer_/);
    const { json } = await pay(sandbox, { terNO: mine.terNO, public_key: mine.publicKey, reference: 'same-ref' });
    expect(json.order_status).toBe('25');
    // The same reference on the seeded terminal is another merchant's business: no 409.
    expect((await pay(sandbox, { reference: 'same-ref' })).status).toBe(200);
    const delivery = await sandbox.waitForDelivery({ match: (d) => d.body.transID === json.transID });
    const signature = delivery.attempts[0]!.requestHeaders['x-sandbox-signature'];
    expect(verifySignature(signature, mine.webhookSecret, delivery.rawBody)).toBe(true);
    expect(verifySignature(signature, sandbox.credentials.webhookSecret, delivery.rawBody)).toBe(false);
  });

  it('resets one merchant alone, and deletes a created one with its objects', async () => {
    const mine = sandbox.createMerchant();
    const theirs = await pay(sandbox);
    await pay(sandbox, { terNO: mine.terNO, public_key: mine.publicKey });
    const removed = await sandbox.reset({ merchant: mine.merchantId });
    expect(removed.transactions).toBe(1);
    expect((await fetch(`${sandbox.url}/_sandbox/transactions/${theirs.json.transID}`)).status).toBe(200);
    await pay(sandbox, { terNO: mine.terNO, public_key: mine.publicKey });
    expect(await sandbox.deleteMerchant(mine.merchantId)).toMatchObject({ transactions: 1, merchants: 1 });
    expect((await pay(sandbox, { terNO: mine.terNO, public_key: mine.publicKey })).status).toBe(401);
    await expect(sandbox.deleteMerchant('mer_sandbox')).rejects.toThrow(/seeded from the fixtures/);
    expect(() => sandbox.createMerchant({ currency: 'EURO' })).toThrow(SandboxError);
  });
});
