// The library entry of paysandbox.
export { loadConfig, type Config, type ConfigFlags } from './config.js';
export { startServer, type RunningServer } from './server/start-server.js';
export { SandboxError, ERROR_CATALOGUE, type ErrorCode } from './errors.js';
export { TEST_CARDS } from './domain/outcomes.js';
export { verifySignature } from './crypto/signature.js';
export { encryptText, decryptText, buildEncryptedData } from './crypto/s2s-cipher.js';
