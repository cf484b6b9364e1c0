// Why the secret a handler verifies with does not verify what the sandbox signed: whitespace around
// the right one, another form of it (the Standard Webhooks form, no whsec_), the secret a rotation
// replaced, another endpoint's or merchant's, or none the sandbox knows. Secrets are compared in
// constant time and named by whose they are, never shown.
import { formatDuration } from '../domain/duration.js';
import { safeEqual, standardSecret } from './signing.js';
import type { SignatureMode } from '../domain/vocabularies.js';
import { sameKey, signerKey, verifierKey } from './match.js';

/** Whose a secret is: a registered endpoint's own, or a merchant's webhook secret. */
export interface SecretOwner {
  kind: 'endpoint' | 'merchant';
  id: string;
  merchantId: string;
}

/** A secret the sandbox signs (or signed) with, and whose it is. */
export interface KnownSecret {
  value: string;
  owner: SecretOwner;
  /** For the secret an endpoint's rotation replaced: when it was replaced, and until when it still signs (sandbox ms). */
  replaced?: { at: number; until: number };
}

/** What is wrong with the handler's secret. */
export interface SecretFinding {
  cause: 'secret_whitespace' | 'other_secret' | 'previous_secret' | 'wrong_secret';
  message: string;
}

/** What secretFinding needs to know about the request and the sandbox. */
export interface SecretContext {
  mode: SignatureMode;
  /** The secrets that may have signed the delivery: its endpoint's current and replaced one, or its merchant's. */
  signers: readonly KnownSecret[];
  /** Every secret the sandbox knows. */
  known: readonly KnownSecret[];
  /** Sandbox time now, ms. */
  now: number;
  /** "attempt 2 of delivery whd_..." */
  what: string;
  deliveryId: string;
  /** The prefix word of the signature header names (Sandbox). */
  prefix: string;
}

/** "endpoint we_1's secret", "endpoint we_1's previous secret", "merchant mer_x's webhook secret". */
export function secretName(secret: KnownSecret): string {
  const { kind, id } = secret.owner;
  if (kind === 'merchant') return `merchant ${id}'s webhook secret`;
  return `endpoint ${id}'s ${secret.replaced ? 'previous ' : ''}secret`;
}

/** Where the merchant finds the secret (never the secret itself). */
export function whereToFind(secret: KnownSecret): string {
  return secret.owner.kind === 'merchant'
    ? '`sandbox merchants list --json` shows it'
    : `the answer that created the endpoint, or its last POST /v1/webhook_endpoints/${secret.owner.id}/rotate_secret, shows it`;
}

const withoutPrefix = (secret: string) => secret.replace(/^whsec_/, '');

/** True when `given` is `secret` written another way: its text, its Standard Webhooks form, either without whsec_. */
function isFormOf(given: string, secret: string): boolean {
  const forms = new Set([secret, standardSecret(secret), withoutPrefix(secret), withoutPrefix(standardSecret(secret))]);
  let found = false;
  for (const form of forms) found = safeEqual(given, form) || found;
  return found;
}

/** True when a verifier given `given` derives the key the sandbox signs with from `secret`. */
function verifies(given: string, secret: string, mode: SignatureMode): boolean {
  return sameKey(verifierKey(given, mode), signerKey(secret, mode));
}

/** The fix of a secret with whitespace around it. */
export const TRIM = 'trim it where your handler reads it (an .env file or a secret store often adds a newline)';

/** Where the whitespace around a secret is, in words. */
export function whitespaceOf(given: string): string {
  if (/\r?\n$/.test(given)) return 'ends with a newline';
  if (/^\s/.test(given) && /\s$/.test(given)) return 'has whitespace at both ends';
  return /^\s/.test(given) ? 'starts with whitespace' : 'ends with whitespace';
}

function otherForm(given: string, signer: KnownSecret, mode: SignatureMode): string {
  const name = secretName(signer);
  if (mode === 'standard')
    return `that is ${name} as text, but a Standard Webhooks library takes the base64 after whsec_ as the key: in standard mode pass its Standard Webhooks form, whsec_ and the base64 of its text (the start banner and startSandbox().credentials.webhookSecret show it in this mode)`;
  const standard = standardSecret(signer.value);
  if (standard !== signer.value && (safeEqual(given, standard) || safeEqual(given, withoutPrefix(standard))))
    return `that is the Standard Webhooks form of ${name} (whsec_ and the base64 of its text); in ${mode} mode the HMAC key is the secret's own text, which that base64 decodes to`;
  return `that is ${name} without its whsec_ start; in ${mode} mode the whole text, whsec_ included, is the HMAC key`;
}

function rotation(given: string, signer: KnownSecret, c: SecretContext, previousHeader: boolean): string | undefined {
  const other = c.signers.find((s) => s !== signer && s.owner.id === signer.owner.id && verifies(given, s.value, c.mode));
  if (!other) return undefined;
  const ago = (at: number) => formatDuration(Math.max(0, c.now - at));
  const name = `X-${c.prefix}-Signature`;
  if (other.replaced) {
    const { at, until } = other.replaced;
    const still =
      previousHeader && until > c.now
        ? `; only ${name}-Previous carries the old secret's signature, for ${formatDuration(until - c.now)} more`
        : `; it stopped signing ${ago(until)} ago, 24 h after the rotation`;
    return `that is ${secretName(other)}, replaced by a rotation ${ago(at)} ago: ${c.what} is signed with the new one${still}; verify with the new secret: ${whereToFind(signer)}`;
  }
  return `${c.what} was signed before endpoint ${signer.owner.id}'s secret was rotated (${ago(signer.replaced?.at ?? c.now)} ago), with the secret that rotation replaced, and your handler has the new one: replay it for a signature made with the new secret (sandbox webhooks replay ${c.deliveryId})`;
}

/**
 * Why `given` does not verify what `signer` signed: the caller's secret against the signer's, the
 * delivery's other signers (a rotation) and every secret the sandbox knows, in that order.
 */
export function secretFinding(given: string, signer: KnownSecret, c: SecretContext, previousHeader = false): SecretFinding {
  const trimmed = given.trim();
  if (trimmed !== given && verifies(trimmed, signer.value, c.mode)) {
    const message = `the secret your handler uses ${whitespaceOf(given)}; without it, it is ${secretName(signer)} and the signature verifies: ${TRIM}`;
    return { cause: 'secret_whitespace', message };
  }
  for (const candidate of new Set([given, trimmed])) {
    if (isFormOf(candidate, signer.value)) return { cause: 'other_secret', message: otherForm(candidate, signer, c.mode) };
    const rotated = rotation(candidate, signer, c, previousHeader);
    if (rotated) return { cause: 'previous_secret', message: rotated };
  }
  const mine = (s: KnownSecret) => s.owner.id === signer.owner.id && s.value === signer.value;
  const other = c.known.find((s) => !mine(s) && (isFormOf(trimmed, s.value) || verifies(trimmed, s.value, c.mode)));
  if (other) {
    const merchant = other.owner.merchantId === signer.owner.merchantId ? '' : ` (merchant ${other.owner.merchantId})`;
    const message = `that is ${secretName(other)}${other.owner.kind === 'endpoint' ? merchant : ''}, not the one that signs ${c.what}: it is signed with ${secretName(signer)}; ${whereToFind(signer)}`;
    return { cause: 'other_secret', message };
  }
  return {
    cause: 'wrong_secret',
    message: `the secret your handler uses is none this sandbox knows: ${c.what} is signed with ${secretName(signer)}; ${whereToFind(signer)}`,
  };
}
