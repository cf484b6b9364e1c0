// The webhook audit against real handlers on 127.0.0.1: a naive one that answers 200 to anything
// (fails: it takes a forged signature and a tampered body), a careful one that verifies the
// signature and the timestamp and answers a duplicate 200 without processing it again (passes), and
// a slow one (fails the time limit). Driven through startSandbox().auditWebhooks(), as a suite would.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decryptText, SandboxError, startSandbox, type AuditResult, type SandboxHandle } from '../../src/index.js';
import { carefulHandler, startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { CREDS } from '../helpers/test-sandbox.js';
import { Webhook } from 'standardwebhooks';

/** The careful handler, verifying with the seeded merchant's secret. */
const careful = (mode: 'plain' | 'timestamped', options: { checkTimestamp?: boolean } = {}) => carefulHandler(mode, CREDS.secret, options);

const byId = (result: AuditResult) => Object.fromEntries(result.cases.map((c) => [c.id, c]));

let sandbox: SandboxHandle;
let receiver: FakeMerchant | undefined;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('startSandbox().auditWebhooks()', () => {
  it('fails a naive handler that answers 200 to anything: it took a forged signature and a tampered body', async () => {
    receiver = await startFakeMerchant();
    const result = await sandbox.auditWebhooks(`${receiver.url}/webhooks`);
    const cases = byId(result);
    expect(result.passed).toBe(false);
    expect(cases.valid).toMatchObject({ result: 'pass', status: 200 });
    expect(cases['bad-signature']).toMatchObject({ level: 'must-pass', result: 'fail', status: 200 });
    expect(cases['bad-signature']!.reason).toMatch(
      /answered 200 in \d+ ms; a request whose X-Sandbox-Signature does not verify must be refused with a 4xx/,
    );
    expect(cases['tampered-body']).toMatchObject({ result: 'fail', status: 200 });
    expect(result.summary.mustPassFailed).toBe(2);
  });

  it('passes a careful handler, sending real signed events of the sandbox (JSON envelopes and an encrypted S2S form body)', async () => {
    const handler = careful('plain');
    receiver = await startFakeMerchant({ answer: handler.answer });
    const result = await sandbox.auditWebhooks(`${receiver.url}/webhooks`);
    expect(result.cases.map((c) => [c.id, c.result])).toEqual([
      ['valid', 'pass'],
      ['duplicate', 'pass'],
      ['raw-body', 'pass'],
      ['bad-signature', 'pass'],
      ['tampered-body', 'pass'],
      ['stale-timestamp', 'skip'],
      ['unknown-event-type', 'pass'],
      ['out-of-order', 'pass'],
      ['encrypted-s2s', 'pass'],
      ['large-payload', 'pass'],
    ]);
    expect(result.passed).toBe(true);
    expect(byId(result)['bad-signature']!.status).toBe(400);

    // The duplicate repeated the first event id, and the handler processed it once.
    const ids = receiver.received.map((r) => r.headers['x-sandbox-event-id']);
    expect(ids[1]).toBe(ids[0]);
    expect(handler.processed.filter((id) => id === ids[0])).toHaveLength(1);
    // The first delivery is a real payment.authorized envelope of a /v1/ payment.
    const first = JSON.parse(receiver.received[0]!.body) as {
      event: string;
      id: string;
      data: { payment_id: string; status: string; amount: number };
      created_at: string;
    };
    expect(first).toMatchObject({ event: 'payment.authorized', data: { status: 'authorized', amount: 2000 } });
    expect(first.data.payment_id).toMatch(/^pay_/);
    // Out of order: payment.captured, then payment.authorized of the same payment.
    const order = receiver.received.slice(-4, -2).map((r) => JSON.parse(r.body) as { event: string; data: { payment_id: string } });
    expect(order.map((e) => e.event)).toEqual(['payment.captured', 'payment.authorized']);
    expect(order[0]!.data.payment_id).toBe(order[1]!.data.payment_id);
    // The S2S case is a form body data=<cipher> that decrypts with the terminal keys to the spec §6.1 fields.
    const s2s = receiver.received.at(-2)!;
    expect(s2s.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const data = new URLSearchParams(s2s.body).get('data')!;
    const fields = Object.fromEntries(
      new URLSearchParams(decryptText(data, { publicKey: CREDS.publicKey, privateKey: CREDS.privateKey }).plaintext),
    );
    expect(fields).toMatchObject({ order_status: '25', status: 'Test Approved', bill_amt: '20.00' });
    // The large payload reached 256 KiB.
    expect(receiver.received.at(-1)!.body.length).toBeGreaterThanOrEqual(256 * 1024);
  });

  it('fails a slow handler: no answer within the time limit', async () => {
    receiver = await startFakeMerchant({ answer: () => new Promise((resolve) => setTimeout(() => resolve(200), 1000)) });
    const result = await sandbox.auditWebhooks(`${receiver.url}/webhooks`, { timeoutMs: 250 });
    expect(result.passed).toBe(false);
    expect(byId(result).valid).toMatchObject({ result: 'fail', status: null });
    expect(byId(result).valid!.reason).toMatch(/^no answer within 250 ms/);
  });

  it('grades a handler that answers at once with an endless body by its status, not as "no answer"', async () => {
    // The audit read to the body's end and so reported a 200 sent at once as no answer within the limit.
    receiver = await startFakeMerchant({ endless: true });
    const result = await sandbox.auditWebhooks(`${receiver.url}/webhooks`, { timeoutMs: 2000 });
    const cases = byId(result);
    expect(cases.valid).toMatchObject({ result: 'pass', status: 200, reason: expect.stringMatching(/^answered 200 in \d+ ms$/) });
    expect(cases['bad-signature']).toMatchObject({ result: 'fail', status: 200 });
    expect(result.cases.every((c) => !c.reason.startsWith('no answer'))).toBe(true);
  });

  it('in standard mode, a handler verifying with the standardwebhooks package passes, stale timestamp included', async () => {
    const standard = await startSandbox({ signature: 'standard' });
    try {
      // The package checks the signature and refuses a timestamp more than 5 minutes off.
      const verifier = new Webhook(standard.credentials.webhookSecret);
      const seen = new Set<string>();
      receiver = await startFakeMerchant({
        answer: (request) => {
          try {
            verifier.verify(request.body, request.headers as Record<string, string>);
          } catch {
            return 400;
          }
          seen.add(String(request.headers['webhook-id']));
          return 200;
        },
      });
      const result = await standard.auditWebhooks(`${receiver.url}/webhooks`);
      expect(byId(result)['stale-timestamp']).toMatchObject({ level: 'must-pass', result: 'pass', status: 400 });
      expect(byId(result)['bad-signature']).toMatchObject({ result: 'pass', status: 400 });
      expect(byId(result).valid).toMatchObject({ result: 'pass', status: 200 });
      expect(result.passed).toBe(true);
      expect(seen.size).toBeGreaterThan(0);
    } finally {
      await standard.close();
    }
  });

  it('in timestamped mode, grades the stale timestamp: refused by a handler that checks it, failed by one that does not', async () => {
    const strict = await startSandbox({ signature: 'timestamped' });
    try {
      receiver = await startFakeMerchant({ answer: careful('timestamped').answer });
      const good = await strict.auditWebhooks(`${receiver.url}/webhooks`);
      expect(byId(good)['stale-timestamp']).toMatchObject({ level: 'must-pass', result: 'pass', status: 400 });
      expect(good.passed).toBe(true);
      await receiver.close();

      receiver = await startFakeMerchant({ answer: careful('timestamped', { checkTimestamp: false }).answer });
      const lax = await strict.auditWebhooks(`${receiver.url}/webhooks`);
      expect(byId(lax)['stale-timestamp']).toMatchObject({ result: 'fail', status: 200 });
      expect(byId(lax)['stale-timestamp']!.reason).toMatch(/10 minutes old must be refused/);
      expect(lax.passed).toBe(false);
    } finally {
      await strict.close();
    }
  });

  it('a wrong secret fails the valid case; an unknown option value is a parameter_invalid naming it', async () => {
    receiver = await startFakeMerchant({ answer: careful('plain').answer });
    const result = await sandbox.auditWebhooks(`${receiver.url}/webhooks`, { secret: 'whsec_not_the_one' });
    expect(byId(result).valid).toMatchObject({ result: 'fail', status: 400 });
    await expect(sandbox.auditWebhooks('ftp://127.0.0.1/webhooks')).rejects.toMatchObject({ code: 'parameter_invalid', param: 'url' });
    // A sandbox's control API is no webhook handler: its forged events could reset the sandbox.
    await expect(sandbox.auditWebhooks(`${sandbox.url}/_sandbox/reset`)).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'url',
      message: expect.stringContaining("points at the sandbox's own control API"),
    });
    await expect(sandbox.auditWebhooks(`${receiver.url}/`, { signature: 'sha1' as never })).rejects.toThrow(SandboxError);
    await expect(sandbox.auditWebhooks(`${receiver.url}/`, { merchant: 'mer_nobody' })).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'merchant',
    });
  });

  it('adds nothing to the sandbox it runs from: no event, no delivery', async () => {
    receiver = await startFakeMerchant();
    await sandbox.auditWebhooks(`${receiver.url}/webhooks`);
    expect(sandbox.deliveries()).toEqual([]);
  });
});
