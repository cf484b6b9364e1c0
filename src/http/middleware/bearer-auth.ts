// Authorization: Bearer <key> on every /v1/ call. A key names one merchant; routes read it as
// c.get('merchant') and only ever look up that merchant's objects.
import type { Context, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app-env.js';
import { SandboxError } from '../../errors.js';
import { safeEqual } from '../../signatures/signing.js';
import type { Merchant } from '../../store/credentials-repo.js';
import type { Services } from '../../services/services.js';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="paysandbox"' };
const KEY_FORMAT = /^sk_(test|live)_[A-Za-z0-9_]{1,200}$/;

/** Sets the request's merchant (c.get('merchant')) from the bearer key; 401 when it is missing, malformed, unknown or live. */
export function bearerAuth(services: Services): MiddlewareHandler<AppEnv> {
  const { credentials } = services;
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header('authorization');
    if (header === undefined || header.trim() === '') {
      throw new SandboxError(
        'authentication_required',
        'send your API key as Authorization: Bearer sk_test_... (the sandbox seeds sk_test_sandbox)',
        undefined,
        CHALLENGE,
      );
    }
    const match = /^Bearer +(\S+)$/i.exec(header.trim());
    if (!match || !KEY_FORMAT.test(match[1])) {
      throw new SandboxError(
        'authentication_required',
        'the Authorization header must be "Bearer " followed by an API key such as sk_test_sandbox',
        undefined,
        CHALLENGE,
      );
    }
    const key = match[1];
    if (key.startsWith('sk_live_')) {
      throw new SandboxError(
        'live_key_rejected',
        'live keys are never accepted by the sandbox; use a test key such as sk_test_sandbox',
        undefined,
        CHALLENGE,
      );
    }
    // Every key is compared in constant time (safeEqual), as terminal keys are, so response timing
    // reveals nothing of a key; a sandbox holds a handful. An unknown key's answer never echoes it.
    let merchant: Merchant | undefined;
    for (const entry of credentials.apiKeys()) if (safeEqual(entry.key, key)) merchant = credentials.merchant(entry.merchantId);
    if (!merchant)
      throw new SandboxError(
        'invalid_credentials',
        'the API key is not known to this sandbox; use a key from its fixtures, such as sk_test_sandbox',
        undefined,
        CHALLENGE,
      );
    c.set('merchant', merchant);
    await next();
  });
}

/** The merchant bearerAuth authenticated (every /v1/ route runs behind it). */
export function currentMerchant(c: Context<AppEnv>): Merchant {
  const merchant = c.get('merchant');
  if (!merchant) throw new Error('bearerAuth must run before a /v1/ route');
  return merchant;
}
