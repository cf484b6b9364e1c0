// Webhook signatures (docs/decisions.md): X-<Prefix>-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>,
// GitHub's scheme, so existing verifiers work; "timestamped" mode signs "<timestamp>.<body>".
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SignatureMode } from '../config.js';

/** Lower-case hex HMAC-SHA256 of `payload` with `secret`. */
export function hmacHex(secret: string, payload: string | Buffer): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/** The signed payload for a mode: the raw body, or "<timestamp>.<body>". */
export function signedPayload(mode: SignatureMode, body: string, timestamp: number): string {
  return mode === 'timestamped' ? `${timestamp}.${body}` : body;
}

/** The header value for one or more secrets (two during a rotation), comma-separated. */
export function signatureHeader(secrets: readonly string[], mode: SignatureMode, body: string, timestamp: number): string {
  const payload = signedPayload(mode, body, timestamp);
  return secrets.map((secret) => `sha256=${hmacHex(secret, payload)}`).join(',');
}

/** Compares two strings in constant time (for equal lengths), so timing reveals nothing of a secret. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  // Compare against itself when lengths differ so the work done does not depend on where they differ.
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/** True when any sha256=<hex> entry of `header` matches the body under `secret`. */
export function verifySignature(header: string | undefined, secret: string, body: string, mode: SignatureMode = 'plain', timestamp = 0): boolean {
  if (!header) return false;
  const expected = `sha256=${hmacHex(secret, signedPayload(mode, body, timestamp))}`;
  let ok = false;
  for (const part of header.split(',')) ok = safeEqual(part.trim(), expected) || ok;
  return ok;
}
