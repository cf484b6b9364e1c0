// POST /api/s2s/encrypt (spec §4.2): one form field, encrypted_data = ciphertext + public_key. The
// terminal is found by that suffix (credentials.terminalOfEncryptedData, as for idempotency keys and merchant= faults), the ciphertext is decrypted with its keys (docs/decisions.md
// scheme, src/crypto/s2s-cipher.ts), and the query string inside goes through the same validator
// and service as /api/s2s. The answer carries only the spec §2.3 fields.
import { Hono } from 'hono';
import { decryptText, splitEncryptedData } from '../crypto/s2s-cipher.js';
import { safeEqual } from '../signatures/signing.js';
import { SandboxError, present } from '../errors.js';
import type { AppDeps, AppEnv } from './app-env.js';
import { clientIp } from './middleware/client-ip.js';
import { s2sResponse } from './s2s.js';
import { s2sEncryptedPaymentView, toS2SEncryptedPaymentView } from '../views/s2s.js';
import { s2sEncryptedForm, s2sEncryptedSchema } from '../contracts/s2s-schema.js';
import { authenticateTerminal } from './terminal-auth.js';
import { readForm } from './validation.js';
import { validate } from '../contracts/validate.js';
import type { OpenApiRoute } from './openapi/route.js';

/** The response header that reports input accepted in a non-canonical form (single base64, no '=' padding). */
export const WARNING_HEADER = 'X-Sandbox-Warning';

// key=value pairs joined with '&', keys in the characters form encoding leaves as they are.
// Values may hold raw spaces (PHP's parse_str reads them too) but never line breaks.
const QUERY_PAIR = /^[A-Za-z0-9_.\-[\]%+]+=[^&\r\n]*$/;
const RAW_SPACE_WARNING = "a value in the decrypted query string contains a raw space; it was accepted, but encode spaces as '+'";

/** Parses decrypted text as a query string (pushing a warning for raw spaces); a 400 that says what it looks like instead when it is not one. */
export function parseDecryptedQuery(plaintext: string, warnings: string[]): Record<string, string> {
  const text = plaintext.replace(/^\?/, '');
  const pairs = text.split('&');
  if (text.trim() === '' || !pairs.every((pair) => QUERY_PAIR.test(pair))) {
    const start = text.trimStart()[0];
    const looksLike = start === '{' || start === '[' ? ' (it looks like JSON)' : start === '<' ? ' (it looks like XML)' : '';
    throw new SandboxError(
      'parameter_invalid',
      `encrypted_data decrypted correctly, but the text inside is not a query string${looksLike}; encrypt key=value pairs joined with '&', values URL-encoded with spaces as '+', e.g. "public_key=pk_test_1001&terNO=1001&bill_amt=10.00&..."`,
      'encrypted_data',
    );
  }
  if (text.includes(' ')) warnings.push(RAW_SPACE_WARNING);
  return Object.fromEntries(new URLSearchParams(text));
}

/** The /api/s2s/encrypt route. */
export function s2sEncryptedRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { services } = deps;

  app.post('/api/s2s/encrypt', async (c) => {
    const form = await readForm(c);
    const encryptedData = form.encrypted_data;
    if (!encryptedData) {
      throw new SandboxError(
        'parameter_missing',
        'encrypted_data is required: send base64(base64(AES-256-CBC of the query string)) followed by the public_key, URL-encoded in an application/x-www-form-urlencoded body',
        'encrypted_data',
      );
    }
    const found = services.credentials.terminalOfEncryptedData(encryptedData);
    const { cipherText } = splitEncryptedData(encryptedData, found?.publicKey);
    const terminal = present(found, 'the terminal (splitEncryptedData refuses an unknown public key)');
    const { plaintext, warnings } = decryptText(cipherText, terminal);
    const params = parseDecryptedQuery(plaintext, warnings);
    // Set before validating so a rejected request also says which near-miss form it used.
    if (warnings.length) c.header(WARNING_HEADER, warnings.join('; '));
    const input = validate(s2sEncryptedSchema(), params);
    if (!safeEqual(input.public_key, terminal.publicKey)) {
      throw new SandboxError(
        'invalid_credentials',
        'the public_key inside encrypted_data is not the public_key appended after the ciphertext; both must be the same terminal public_key',
        'public_key',
      );
    }
    authenticateTerminal(services, input.terNO, input.public_key);
    const created = services.s2s.create(input, terminal, {
      billIp: clientIp(c),
      forcedScript: deps.forcedScript(c, 's2s', input, terminal),
    });
    return c.json(toS2SEncryptedPaymentView(s2sResponse(deps, created)));
  });

  return app;
}

/** The routes of this module, for /openapi.json. */
export const s2sEncryptedOpenApi: OpenApiRoute[] = [
  {
    method: 'post',
    path: '/api/s2s/encrypt',
    tag: 'S2S',
    auth: 'terminal',
    summary: 'Create an S2S payment from encrypted parameters (spec §4.2); x-encrypted-parameters are the fields inside',
    body: s2sEncryptedForm,
    bodyType: 'application/x-www-form-urlencoded',
    encryptedBody: s2sEncryptedSchema,
    response: 'the spec §2.3 fields: authurl, transID, reference, order_status, status, bill_amt, bill_currency, response',
    responseSchema: s2sEncryptedPaymentView,
    errors: ['decryption_failed', 'invalid_credentials', 'reference_in_use'],
  },
];
