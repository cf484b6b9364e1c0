// The library entry of paysandbox: startSandbox() for test suites, and the pieces a merchant's
// tests reuse (signature check, S2S cipher, test cards, the outcome vocabulary).
export {
  startSandbox,
  type StartSandboxOptions,
  type SandboxHandle,
  type SandboxCredentials,
  type MerchantCredentials,
  type CreateMerchantOptions,
  type CreatedMerchant,
  type WaitForDeliveryOptions,
  type AuthenticationResult,
  type AuditWebhooksOptions,
  type DiagnoseSignatureOptions,
} from './library/start-sandbox.js';
export type { SignatureDiagnosis, SignatureCause } from './crypto/signature-findings.js';
export type { AuditResult, AuditCase } from './webhooks/audit.js';
export type { SandboxDelivery, SandboxDeliveryAttempt } from './library/deliveries.js';
export { loadConfig, type Config, type ConfigFlags } from './config.js';
export { startServer, type RunningServer } from './server/start-server.js';
export { SandboxError, ERROR_CATALOGUE, type ErrorCode } from './errors.js';
export { TEST_CARDS } from './domain/outcomes.js';
export { OUTCOME_WORDS } from './domain/outcome-spec.js';
export { verifySignature, verifyWebhook, signatureHeaders, standardSecret, type SignatureMode } from './crypto/signature.js';
export { encryptText, decryptText, buildEncryptedData } from './crypto/s2s-cipher.js';
