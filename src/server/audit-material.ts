// The events a webhook audit sends when it has no running sandbox to take them from: made by the real
// services in a private in-memory sandbox seeded with the same fixtures (a /v1/ payment triggered to
// payment.captured, and a frictionless S2S payment), then thrown away. Nothing is listening and its
// worker never starts, so no webhook of its own goes anywhere.
import { loadConfig } from '../config.js';
import { validate } from '../contracts/validate.js';
import { s2sPaymentSchema } from '../contracts/s2s-schema.js';
import { SandboxError, present } from '../errors.js';
import { silentLogger } from '../runtime/logger.js';
import type { AuditMaterial } from '../webhooks/audit/audit.js';
import { buildSandbox } from './start-server.js';

/** The material of an audit for a merchant of the fixtures file (default: its first merchant). */
export function syntheticAuditMaterial(fixturesPath: string | undefined, merchantId?: string): AuditMaterial {
  const config = loadConfig({ db: ':memory:', quiet: true, retry: 'none', ...(fixturesPath ? { fixtures: fixturesPath } : {}) }, {});
  const { db, store, services, clock } = buildSandbox(config, { logger: silentLogger });
  try {
    const merchants = store.credentials.merchants();
    const merchant = merchantId === undefined ? merchants[0] : store.credentials.merchant(merchantId);
    if (!merchant) {
      throw new SandboxError(
        'resource_missing',
        `no merchant ${merchantId} in the fixtures; use one of ${merchants.map((m) => m.id).join(', ')}`,
        'merchant',
      );
    }
    const { event: captured, events } = services.triggers.trigger({ type: 'payment.captured', merchantId: merchant.id });
    const authorized = present(
      events.find((e) => e.type === 'payment.authorized' && e.resourceId === captured.resourceId),
      'the payment.authorized event of the trigger',
    );
    const terminal = store.credentials.terminals().find((t) => t.merchantId === merchant.id);
    let s2s = null;
    if (terminal) {
      // Card 4242 4242 4242 4242 is approved at once (docs/decisions.md), so its payment.authorized carries order_status 25.
      const year = String((new Date(clock.now()).getUTCFullYear() + 5) % 100);
      const input = validate(s2sPaymentSchema(), {
        public_key: terminal.publicKey,
        terNO: terminal.terNo,
        bill_amt: '20.00',
        bill_currency: 'EUR',
        product_name: 'Webhook audit',
        reference: 'webhook_audit',
        webhook_url: 'http://127.0.0.1:9/webhooks',
        return_url: 'http://127.0.0.1:9/return',
        mop: 'CC',
        ccno: '4242424242424242',
        ccvv: '123',
        month: '12',
        year,
        fullname: 'Jane Doe',
        bill_email: 'jane@example.com',
      });
      const { transaction } = services.s2s.create(input, terminal, { billIp: '127.0.0.1' });
      s2s = store.events.list({ resourceId: transaction.transId, type: 'payment.authorized', limit: 1 })[0] ?? null;
    }
    return {
      source: 'synthetic',
      merchantId: merchant.id,
      secret: merchant.webhookSecret,
      keys: terminal ? { publicKey: terminal.publicKey, privateKey: terminal.privateKey } : null,
      authorized,
      captured,
      s2s,
    };
  } finally {
    db.close();
  }
}
