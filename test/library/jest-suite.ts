// The jest example of docs/library.md as a suite: only the globals jest provides (describe, it,
// beforeAll, afterAll, expect), nothing of vitest. jest-style.test.ts installs vitest's
// implementations of those globals and loads this file, so CI runs the same code jest would.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, verifySignature, type SandboxHandle } from '../../src/index.js';
import type { S2SPaymentView } from '../../src/views/s2s.js';

type Fn = () => unknown;
declare const describe: (name: string, fn: () => void) => void;
declare const it: (name: string, fn: Fn) => void;
declare const beforeAll: (fn: Fn) => void;
declare const afterAll: (fn: Fn) => void;
declare const expect: (value: unknown) => {
  toBe(expected: unknown): void;
  toHaveLength(length: number): void;
  toMatch(pattern: RegExp): void;
};

describe('checkout against paysandbox (jest style)', () => {
  let sandbox: SandboxHandle;
  let receiver: http.Server;
  let webhookUrl: string;
  const received: Array<{ body: string; signature: string | undefined }> = [];

  beforeAll(async () => {
    sandbox = await startSandbox();
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ body, signature: req.headers['x-sandbox-signature'] as string | undefined });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  });

  afterAll(async () => {
    await sandbox.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('a challenged card payment is approved and its signed webhook arrives', async () => {
    const res = await fetch(`${sandbox.url}/api/s2s`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        public_key: sandbox.credentials.publicKey,
        terNO: sandbox.credentials.terNO,
        bill_amt: '12.00',
        bill_currency: 'EUR',
        product_name: 'Mug',
        reference: 'jest-order-1',
        webhook_url: webhookUrl,
        return_url: 'http://127.0.0.1/return',
        mop: 'CC',
        ccno: '4000000000003220',
        ccvv: '123',
        month: '12',
        year: '30',
      }),
    });
    const payment = (await res.json()) as S2SPaymentView;
    expect(payment.status).toBe('Pending');

    await sandbox.authenticate(payment.transID, 'approve');
    const delivery = await sandbox.waitForDelivery({ event: 'payment.authorized', url: webhookUrl });

    expect(delivery.body.transID).toBe(payment.transID);
    expect(delivery.body.status).toBe('Test Approved');
    expect(received).toHaveLength(1);
    expect(verifySignature(received[0]!.signature, sandbox.credentials.webhookSecret, received[0]!.body)).toBe(true);
  });

  it('a declined payment says why', async () => {
    const res = await fetch(`${sandbox.url}/api/s2s`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Sandbox-Outcome': 'decline:insufficient_funds' },
      body: JSON.stringify({
        public_key: sandbox.credentials.publicKey,
        terNO: sandbox.credentials.terNO,
        bill_amt: '12.00',
        bill_currency: 'EUR',
        product_name: 'Mug',
        reference: 'jest-order-2',
        webhook_url: webhookUrl,
        return_url: 'http://127.0.0.1/return',
        mop: 'CC',
        ccno: '4242424242424242',
        ccvv: '123',
        month: '12',
        year: '30',
      }),
    });
    const payment = (await res.json()) as S2SPaymentView;
    expect(payment.status).toBe('Test Declined');
    expect(payment.response).toMatch(/^insufficient_funds/);
  });
});
