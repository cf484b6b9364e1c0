// The merchant a public-API request authenticates as, checked as its route checks it: the bearer
// key on /v1/ (bearerAuth runs first and sets c.get('merchant')); on /api/ the terminal its body's
// credentials name: terNO with public_key (POST /api/s2s), public_key (refund-request), the
// public_key after encrypted_data with the terNO and public_key encrypted inside it (POST
// /api/s2s/encrypt), and the authstatus token (GET /api/s2s/status/{token}). Idempotency keys and
// API faults act only on a request that authenticates: any other can only end in the 401 (or other
// 4xx) its route answers, which changes nothing, and a fault must not hide that answer.
import type { Context } from 'hono';
import { decryptText, splitEncryptedData } from '../../crypto/s2s-cipher.js';
import { safeEqual } from '../../signatures/signing.js';
import type { Services } from '../../services/services.js';
import type { Terminal } from '../../store/credentials-repo.js';
import type { AppEnv } from '../app-env.js';
import { authenticateTerminal, terminalWithPublicKey } from '../terminal-auth.js';

const STATUS_PATH = /^\/api\/s2s\/status\/([^/]+)$/;

/** Runs a check that throws its 401; undefined instead (the route answers the 401 itself). */
function quietly<T>(check: () => T): T | undefined {
  try {
    return check();
  } catch {
    return undefined;
  }
}

/** The terminal that terNO (a number, or digits as /api/s2s takes them) and public_key name together. */
function terminalOf(services: Services, terNo: unknown, publicKey: unknown): Terminal | undefined {
  const number = typeof terNo === 'number' ? terNo : typeof terNo === 'string' && /^\d{1,9}$/.test(terNo) ? Number(terNo) : undefined;
  if (number === undefined || typeof publicKey !== 'string') return undefined;
  return quietly(() => authenticateTerminal(services, number, publicKey));
}

/**
 * The terminal of an encrypted_data field: its public_key suffix (found by the one resolver the
 * route uses, so both always agree), a ciphertext that decrypts with its keys, and the same
 * credentials inside.
 */
function encryptedTerminal(services: Services, encryptedData: string): Terminal | undefined {
  return quietly(() => {
    const terminal = services.credentials.terminalOfEncryptedData(encryptedData);
    if (!terminal) return undefined;
    const { cipherText, publicKey } = splitEncryptedData(encryptedData, terminal.publicKey);
    const inner = new URLSearchParams(decryptText(cipherText, terminal).plaintext.replace(/^\?/, ''));
    const innerKey = inner.get('public_key') ?? '';
    return safeEqual(innerKey, publicKey) ? terminalOf(services, inner.get('terNO'), innerKey) : undefined;
  });
}

/** The id of the merchant whose credential the request carries and that credential proves, or undefined. */
export function authenticatedMerchant(services: Services, c: Context<AppEnv>, body: string): string | undefined {
  const path = c.req.path;
  if (path.startsWith('/v1/')) return c.get('merchant')?.id;
  if (c.req.method === 'GET') {
    const token = STATUS_PATH.exec(path)?.[1];
    return token === undefined ? undefined : services.s2s.byStatusToken(token)?.merchantId;
  }
  if (path === '/api/s2s/encrypt') {
    const encrypted = new URLSearchParams(body).get('encrypted_data');
    return encrypted ? encryptedTerminal(services, encrypted)?.merchantId : undefined;
  }
  const fields = quietly(() => JSON.parse(body) as unknown);
  if (fields === null || typeof fields !== 'object') return undefined;
  const { terNO, public_key: publicKey } = fields as Record<string, unknown>;
  if (path === '/api/s2s') return terminalOf(services, terNO, publicKey)?.merchantId;
  if (path === '/api/transactions/refund-request' && typeof publicKey === 'string')
    return quietly(() => terminalWithPublicKey(services, publicKey))?.merchantId;
  return undefined;
}
