// The library entry of paysandbox: startSandbox() for test suites, and the pieces a merchant's
// tests reuse (signature check, S2S cipher, test cards, the outcome vocabulary).
export { startSandbox, type StartSandboxOptions, type SandboxHandle } from './library/start-sandbox.js';
export type {
  SandboxCredentials,
  MerchantCredentials,
  CreateMerchantOptions,
  CreatedMerchant,
  WaitForDeliveryOptions,
  AuthenticationResult,
  AuditWebhooksOptions,
  DiagnoseSignatureOptions,
  TriggerOptions,
} from './library/handle-types.js';
export type { TriggeredEvent } from './views/event.js';
export type { SignatureDiagnosis, SignatureCause } from './signatures/findings.js';
export type { AuditResult, AuditCase } from './webhooks/audit/audit.js';
export type { SandboxDelivery, SandboxDeliveryAttempt } from './library/deliveries.js';
export { loadConfig, type Config, type ConfigFlags } from './config.js';
export { startServer, type RunningServer } from './server/start-server.js';
export { SandboxError, ERROR_CATALOGUE, type ErrorCode } from './errors.js';
export { TEST_CARDS } from './domain/outcomes.js';
export { OUTCOME_WORDS } from './domain/outcome-spec.js';
export { verifySignature, verifyWebhook, signatureHeaders, standardSecret } from './signatures/signing.js';
export type { SignatureMode } from './domain/vocabularies.js';
export type { EventType } from './domain/event-types.js';
export { encryptText, decryptText, buildEncryptedData } from './crypto/s2s-cipher.js';
