// Webhook signatures (docs/decisions.md). Three modes:
// - plain: X-<Prefix>-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>, GitHub's scheme, so
//   existing verifiers work; timestamped signs "<timestamp>.<body>" the same way.
// - standard: Standard Webhooks (standardwebhooks.com): webhook-id, webhook-timestamp and
//   webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>, the key being the
//   base64 after whsec_.
// During a secret rotation the signature header still holds exactly one GitHub-style signature
// (the new secret's), because stock verifiers compare the whole header; the old secret's goes in
// X-<Prefix>-Signature-Previous. Standard Webhooks defines space-separated signatures for exactly
// this case, so that mode lists both in webhook-signature.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SignatureMode } from '../domain/vocabularies.js';

/** The secrets that sign one delivery and how: current first, then the replaced one while a rotation lasts. */
export interface WebhookSigning {
  mode: SignatureMode;
  secrets: readonly string[];
}

/** What signatureHeaders needs to sign one request. */
export interface SignatureInput extends WebhookSigning {
  /** The word of --header-prefix (Sandbox in X-Sandbox-Signature). */
  prefix: string;
  /** The message id: webhook-id in standard mode (the event id, the same on every retry). */
  id: string;
  /** Unix seconds of the attempt. */
  timestamp: number;
  /** The raw body, exactly as sent. */
  body: string;
}

/** Lower-case hex HMAC-SHA256 of `payload` with `secret`. */
export function hmacHex(secret: string, payload: string | Buffer): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/** The signed payload of the GitHub-style modes: the raw body, or "<timestamp>.<body>". */
export function signedPayload(mode: SignatureMode, body: string, timestamp: number): string {
  return mode === 'timestamped' ? `${timestamp}.${body}` : body;
}

/** One GitHub-style header value, `sha256=<hex>`, for one secret (plain or timestamped mode). */
export function signatureHeader(secret: string, mode: SignatureMode, body: string, timestamp: number): string {
  return `sha256=${hmacHex(secret, signedPayload(mode, body, timestamp))}`;
}

/** Canonical base64, padded or not: what every Standard Webhooks library decodes the same way. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/** True for non-empty canonical base64 (padded or not), the form a Standard Webhooks key takes after whsec_. */
export function isCanonicalBase64(text: string): boolean {
  return text !== '' && BASE64.test(text);
}

/**
 * The secret as a Standard Webhooks library takes it (`whsec_<base64>`). Secrets the sandbox makes
 * already are; one that is not base64 after whsec_ (the seeded whsec_test_sandbox) becomes
 * whsec_ + the base64 of its own text, so its key is the same bytes the other modes sign with.
 */
export function standardSecret(secret: string): string {
  const body = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  return isCanonicalBase64(body) ? secret : `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;
}

/** The HMAC key the sandbox signs with in standard mode: the base64 after whsec_ of the secret's standard form, decoded. */
export function standardKey(secret: string): Buffer {
  return Buffer.from(standardSecret(secret).replace(/^whsec_/, ''), 'base64');
}

/** `v1,<base64 HMAC-SHA256>` of "<id>.<timestamp>.<body>" under a secret's Standard Webhooks key. */
export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The signature headers of one webhook request in its mode (names in lower case). */
export function signatureHeaders(input: SignatureInput): Record<string, string> {
  const { mode, secrets, id, timestamp, body } = input;
  if (mode === 'standard') {
    return {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': secrets.map((secret) => standardSignature(secret, id, timestamp, body)).join(' '),
    };
  }
  const name = `x-${input.prefix.toLowerCase()}-signature`;
  const headers: Record<string, string> = { [name]: signatureHeader(secrets[0], mode, body, timestamp) };
  if (secrets[1] !== undefined) headers[`${name}-previous`] = signatureHeader(secrets[1], mode, body, timestamp);
  return headers;
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

/** True when any sha256=<hex> entry of `header` matches the body under `secret` (plain or timestamped mode). */
export function verifySignature(
  header: string | undefined,
  secret: string,
  body: string,
  mode: SignatureMode = 'plain',
  timestamp = 0,
): boolean {
  if (!header) return false;
  const expected = signatureHeader(secret, mode, body, timestamp);
  let ok = false;
  for (const part of header.split(',')) ok = safeEqual(part.trim(), expected) || ok;
  return ok;
}

/**
 * True when a received webhook's headers verify under `secret` in `mode`: the signature header or,
 * during a rotation, the -Previous one (a receiver that still has the old secret); in standard mode
 * any v1 entry of webhook-signature. `headers` are keyed in lower case, as node:http gives them.
 */
export function verifyWebhook(
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  body: string,
  options: { mode: SignatureMode; prefix: string },
): boolean {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  if (options.mode === 'standard') {
    const id = header('webhook-id');
    const timestamp = header('webhook-timestamp');
    const given = header('webhook-signature');
    if (!id || !timestamp || !/^\d+$/.test(timestamp) || !given) return false;
    const expected = standardSignature(secret, id, Number(timestamp), body);
    let ok = false;
    for (const part of given.split(' ')) ok = safeEqual(part, expected) || ok;
    return ok;
  }
  const name = `x-${options.prefix.toLowerCase()}-signature`;
  const timestamp = Number(header(`x-${options.prefix.toLowerCase()}-timestamp`) ?? 0);
  const current = verifySignature(header(name), secret, body, options.mode, timestamp);
  return verifySignature(header(`${name}-previous`), secret, body, options.mode, timestamp) || current;
}
