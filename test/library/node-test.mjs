// startSandbox() under node:test, against the built package (dist/), exactly as a merchant's
// suite imports it. Run with `node --test test/library/node-test.mjs` after `npm run build`;
// test/library/node-test.test.ts runs it in CI.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startSandbox, verifySignature } from '../../dist/index.js';

describe('paysandbox under node:test', () => {
  let sandbox;
  let receiver;
  let webhookUrl;

  before(async () => {
    sandbox = await startSandbox();
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end('ok'));
    });
    await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    webhookUrl = `http://127.0.0.1:${receiver.address().port}/webhooks`;
  });

  after(async () => {
    await sandbox.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const pay = (reference, ccno, headers = {}) =>
    fetch(`${sandbox.url}/api/s2s`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({
        public_key: sandbox.credentials.publicKey,
        terNO: sandbox.credentials.terNO,
        bill_amt: '9.99',
        bill_currency: 'EUR',
        product_name: 'Socks',
        reference,
        webhook_url: webhookUrl,
        return_url: 'http://127.0.0.1/return',
        mop: 'CC',
        ccno,
        ccvv: '123',
        month: '12',
        year: '30',
      }),
    }).then((res) => res.json());

  it('approves the frictionless card and delivers a signed webhook', async () => {
    const payment = await pay('node-1', '4242424242424242');
    assert.equal(payment.status, 'Test Approved');
    const delivery = await sandbox.waitForDelivery({ event: 'payment.authorized', url: webhookUrl });
    assert.equal(delivery.body.transID, payment.transID);
    assert.equal(delivery.attempts[0].responseStatus, 200);
    assert.ok(verifySignature(delivery.attempts[0].requestHeaders['x-sandbox-signature'], sandbox.credentials.webhookSecret, delivery.rawBody));
  });

  it('expires an unanswered challenge when the clock moves 15 minutes', async () => {
    const payment = await pay('node-2', '4000000000003220');
    assert.equal(payment.status, 'Pending');
    sandbox.clock.advance('15m');
    const delivery = await sandbox.waitForDelivery({ event: 'payment.expired' });
    assert.equal(delivery.body.transID, payment.transID);
  });

  it('starts clean again after reset()', async () => {
    await sandbox.reset();
    assert.deepEqual(sandbox.deliveries(), []);
    await assert.rejects(sandbox.waitForDelivery({ event: 'payment.authorized', timeoutMs: 100 }), /Deliveries so far \(0\):\n  none/);
  });
});
