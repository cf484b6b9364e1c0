// The credentials the startSandbox() handle hands out: the seeded merchants' (the first one ready
// to use), and those of a merchant made by createMerchant().
import { standardSecret } from '../signatures/signing.js';
import { SandboxError } from '../errors.js';
import type { RunningServer } from '../server/start-server.js';
import type { MerchantRecord } from '../services/merchants.js';
import type { CreatedMerchant, MerchantCredentials, SandboxCredentials } from './handle-types.js';

/** A merchant made by createMerchant(), with its first terminal and key ready to use. */
export function createdMerchant(m: MerchantRecord): CreatedMerchant {
  const terminal = m.terminals[0];
  return {
    merchantId: m.id,
    name: m.name,
    currency: m.currency,
    webhookSecret: m.webhookSecret,
    apiKeys: m.apiKeys,
    terminals: m.terminals.map((t) => ({ terNO: t.terNo, publicKey: t.publicKey, privateKey: t.privateKey })),
    terNO: terminal.terNo,
    publicKey: terminal.publicKey,
    privateKey: terminal.privateKey,
    apiKey: m.apiKeys[0],
  };
}

/** The handle's credentials: every seeded merchant, the first one's terminal and key ready to use. */
export function credentialsOf(server: RunningServer): SandboxCredentials {
  // In standard mode a fixture secret that is not base64 (whsec_test_sandbox) is shown in the form
  // new Webhook(secret) accepts; it is the same key.
  const secretOf = (secret: string) => (server.config.signatureMode === 'standard' ? standardSecret(secret) : secret);
  // In-process, so every merchant at once (one query), not a page at a time as over HTTP.
  const merchants: MerchantCredentials[] = server.services.merchants.all().map((m) => ({
    merchantId: m.id,
    name: m.name,
    webhookSecret: secretOf(m.webhookSecret),
    apiKeys: m.apiKeys,
    terminals: m.terminals.map((t) => ({ terNO: t.terNo, publicKey: t.publicKey, privateKey: t.privateKey })),
  }));
  const first = merchants[0];
  const terminal = first.terminals[0];
  if (!terminal || first.apiKeys.length === 0) {
    throw new SandboxError(
      'parameter_invalid',
      `the first merchant of the fixtures (${first.merchantId}) needs a terminal and an API key, so the handle's credentials can name them`,
      'fixtures',
    );
  }
  return {
    merchantId: first.merchantId,
    terNO: terminal.terNO,
    publicKey: terminal.publicKey,
    privateKey: terminal.privateKey,
    apiKey: first.apiKeys[0],
    webhookSecret: first.webhookSecret,
    merchants,
  };
}
