// The merchant a public-API request speaks for, read from its credential: the bearer key on /v1/
// (bearerAuth sets c.var.merchant; API faults run before it and compare the key themselves), the
// terminal public_key in the body on /api/ (a JSON or form field, or the end of encrypted_data,
// which carries it unchanged per the gateway's specification). Idempotency keys and merchant= fault
// rules are both scoped by it.
import type { Context } from 'hono';
import { safeEqual } from '../../crypto/signature.js';
import type { Services } from '../../services/services.js';
import type { Merchant } from '../../store/credentials-repo.js';

/** The id of the merchant whose credential the request carries, or undefined when none is recognisable. */
export function merchantOfRequest(credentials: Services['credentials'], c: Context, body: string): string | undefined {
  if (c.req.path.startsWith('/v1/')) {
    const known = c.get('merchant') as Merchant | undefined;
    if (known) return known.id;
    const key = /^Bearer +(\S+)$/i.exec((c.req.header('authorization') ?? '').trim())?.[1];
    if (key === undefined) return undefined;
    let merchantId: string | undefined;
    // Every key is compared, so the time taken says nothing about which one matched.
    for (const entry of credentials.apiKeys()) if (safeEqual(entry.key, key)) merchantId = entry.merchantId;
    return merchantId;
  }
  let publicKey: unknown;
  try {
    publicKey = (JSON.parse(body) as { public_key?: unknown } | null)?.public_key;
  } catch {
    const form = new URLSearchParams(body);
    const encrypted = form.get('encrypted_data');
    // The terminal the route decrypts with: one resolver, so both always agree.
    if (encrypted) return credentials.terminalOfEncryptedData(encrypted)?.merchantId;
    publicKey = form.get('public_key') ?? undefined;
  }
  return typeof publicKey === 'string' ? credentials.terminalByPublicKey(publicKey)?.merchantId : undefined;
}
