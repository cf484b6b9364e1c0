// Which key made a received signature header, and how the header spells it. The diagnosis of a
// failed check (signatures/diagnosis.ts) tries keys against the headers a handler received: the
// handler's own secret as a verifier reads it, and the secrets the sandbox signs with as it uses
// them. A header that holds the right digest without its `sha256=` / `v1,` or in another encoding
// is told apart from one no key made.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isCanonicalBase64, safeEqual, standardKey } from './signing.js';
import { ENTRY_COST, HMAC_COST, type WorkBudget } from './work-budget.js';
import type { SignatureMode } from '../domain/vocabularies.js';

/** Received headers: lower-case names, one text value each. */
export type HeaderMap = Readonly<Record<string, string>>;

/** How a received signature is spelt next to the right one for its key. */
export type Spelling =
  | { form: 'exact' }
  | { form: 'missing_prefix'; prefix: string }
  | { form: 'wrong_encoding'; encoding: string; expected: string; prefixed: boolean };

/** A key's signature found in the received headers: how it is spelt and in which header. */
export interface KeyMatch {
  spelling: Spelling;
  header: string;
}

/** The headers that carry and feed a signature in one mode (lower case). */
export interface SigningHeaders {
  signature: string;
  /** The replaced secret's signature during a rotation (GitHub-style modes only). */
  previous?: string;
  timestamp?: string;
  id?: string;
}

/** The signing headers of `mode` under the header prefix word (`Sandbox`). */
export function signingHeaders(mode: SignatureMode, prefix: string): SigningHeaders {
  if (mode === 'standard') return { signature: 'webhook-signature', timestamp: 'webhook-timestamp', id: 'webhook-id' };
  const name = `x-${prefix.toLowerCase()}-signature`;
  return {
    signature: name,
    previous: `${name}-previous`,
    ...(mode === 'timestamped' ? { timestamp: `x-${prefix.toLowerCase()}-timestamp` } : {}),
  };
}

/**
 * The HMAC key a merchant's verifier derives from `secret`: its text in the GitHub-style modes; in
 * standard mode the base64 after whsec_, decoded, as Standard Webhooks libraries read it (undefined
 * when that is not base64, which those libraries refuse or misread).
 */
export function verifierKey(secret: string, mode: SignatureMode): Buffer | undefined {
  if (mode !== 'standard') return Buffer.from(secret, 'utf8');
  const body = secret.replace(/^whsec_/, '');
  return isCanonicalBase64(body) ? Buffer.from(body, 'base64') : undefined;
}

/** The HMAC key the sandbox signs with from `secret` in `mode`. */
export function signerKey(secret: string, mode: SignatureMode): Buffer {
  return mode === 'standard' ? standardKey(secret) : Buffer.from(secret, 'utf8');
}

/** True when two keys are the same bytes, compared in constant time. */
export function sameKey(a: Buffer | undefined, b: Buffer): boolean {
  return a !== undefined && safeEqual(a.toString('base64'), b.toString('base64'));
}

/** The prefix and digest encoding of a signature entry in `mode`. */
function entryFormat(mode: SignatureMode): { prefix: string; encoding: 'hex' | 'base64' } {
  return mode === 'standard' ? { prefix: 'v1,', encoding: 'base64' } : { prefix: 'sha256=', encoding: 'hex' };
}

/** The longest spelling of a digest in an entry: sha256= and 64 hex digits. */
const LONGEST_SPELLING = 'sha256='.length + 64;

/** Every way an entry may spell `digest` in `mode`, the right one first, each with what it is. */
function spellings(digest: Buffer, mode: SignatureMode): { text: Buffer; spelling: Spelling }[] {
  const { prefix, encoding } = entryFormat(mode);
  const right = digest.toString(encoding);
  const out: { text: Buffer; spelling: Spelling }[] = [
    { text: Buffer.from(prefix + right), spelling: { form: 'exact' } },
    { text: Buffer.from(right), spelling: { form: 'missing_prefix', prefix } },
  ];
  const others: [string, string][] = [
    ['hex', digest.toString('hex')],
    ['upper-case hex', digest.toString('hex').toUpperCase()],
    ['base64', digest.toString('base64')],
    ['base64url', digest.toString('base64url')],
  ];
  const expected = encoding === 'hex' ? 'lower-case hex' : 'base64';
  for (const [name, text] of others) {
    if (text === right) continue;
    out.push({ text: Buffer.from(prefix + text), spelling: { form: 'wrong_encoding', encoding: name, expected, prefixed: true } });
    out.push({ text: Buffer.from(text), spelling: { form: 'wrong_encoding', encoding: name, expected, prefixed: false } });
  }
  return out;
}

/** The first of `candidates` that `entry` is, compared in constant time (lengths, which every spelling's are known, excepted). */
function spellingIn(entry: Buffer, candidates: readonly { text: Buffer; spelling: Spelling }[]): Spelling | undefined {
  let found: Spelling | undefined;
  for (const { text, spelling } of candidates) {
    const same = text.length === entry.length && timingSafeEqual(text, entry);
    if (same && found === undefined) found = spelling;
  }
  return found;
}

/** How `entry` spells `digest` in `mode`; undefined when it is not that digest at all. */
export function spellingOf(entry: string, digest: Buffer, mode: SignatureMode, budget?: WorkBudget): Spelling | undefined {
  budget?.spend(ENTRY_COST);
  return spellingIn(Buffer.from(entry), spellings(digest, mode));
}

/** The entries of a signature header: space-separated in standard mode, comma-separated (repeated headers) otherwise. */
export function signatureEntries(value: string, mode: SignatureMode): string[] {
  return (mode === 'standard' ? value.split(' ') : value.split(',')).map((entry) => entry.trim()).filter(Boolean);
}

/** The digest an entry holds, read back from its right spelling (`sha256=<hex>`, `v1,<base64>`). */
export function entryDigest(entry: string, mode: SignatureMode): Buffer | undefined {
  const { prefix, encoding } = entryFormat(mode);
  return entry.startsWith(prefix) ? Buffer.from(entry.slice(prefix.length), encoding) : undefined;
}

/** The text a signature covers in `mode`, from the received headers; undefined when a signed header is missing. */
export function signedText(headers: HeaderMap, body: string, mode: SignatureMode, prefix: string): string | undefined {
  const names = signingHeaders(mode, prefix);
  if (mode === 'plain') return body;
  const timestamp = names.timestamp === undefined ? undefined : headers[names.timestamp];
  if (timestamp === undefined) return undefined;
  if (mode === 'timestamped') return `${timestamp}.${body}`;
  const id = names.id === undefined ? undefined : headers[names.id];
  return id === undefined ? undefined : `${id}.${timestamp}.${body}`;
}

/** Looks for the signature `key` makes over `body` in the received signature headers of `mode`; `budget` counts the work. */
export function matchKey(
  headers: HeaderMap,
  body: string,
  key: Buffer | undefined,
  mode: SignatureMode,
  prefix: string,
  budget?: WorkBudget,
): KeyMatch | undefined {
  const text = signedText(headers, body, mode, prefix);
  if (!key || text === undefined) return undefined;
  budget?.spend(text.length + HMAC_COST);
  const digest = createHmac('sha256', key).update(text).digest();
  const candidates = spellings(digest, mode);
  const names = signingHeaders(mode, prefix);
  for (const header of [names.signature, names.previous]) {
    const value = header === undefined ? undefined : headers[header];
    if (header === undefined || value === undefined) continue;
    budget?.spend(value.length);
    for (const entry of signatureEntries(value, mode)) {
      budget?.spend(ENTRY_COST);
      // Longer than any spelling of a digest (sha256= and 64 hex digits at most): not one, and not worth copying.
      if (entry.length > LONGEST_SPELLING) continue;
      const spelling = spellingIn(Buffer.from(entry), candidates);
      if (spelling) return { spelling, header };
    }
  }
  return undefined;
}

/** The most signatures a received signature header may hold: one per secret that signs it, and then some. */
export const MAX_SIGNATURE_ENTRIES = 20;
/** The longest received signature header: MAX_SIGNATURE_ENTRIES signatures of the longest spelling, with room to spare. */
export const MAX_SIGNATURE_HEADER_CHARS = 4096;

/**
 * Why a received signature header cannot be one a sender made (more than MAX_SIGNATURE_ENTRIES
 * signatures, or longer than MAX_SIGNATURE_HEADER_CHARS): the header's name and why; undefined when
 * each is fine. A diagnosis tries every key against every entry, so such a header is refused, not read.
 */
export function oversizedSignatureHeader(headers: HeaderMap, prefix: string): { header: string; problem: string } | undefined {
  const plain = signingHeaders('plain', prefix);
  const checks: [string | undefined, SignatureMode][] = [
    [plain.signature, 'plain'],
    [plain.previous, 'plain'],
    ['webhook-signature', 'standard'],
  ];
  for (const [header, mode] of checks) {
    const value = header === undefined ? undefined : headers[header];
    if (header === undefined || value === undefined) continue;
    if (value.length > MAX_SIGNATURE_HEADER_CHARS)
      return { header, problem: `is ${value.length} characters long; a signature header is at most ${MAX_SIGNATURE_HEADER_CHARS}` };
    const count = signatureEntries(value, mode).length;
    if (count > MAX_SIGNATURE_ENTRIES)
      return {
        header,
        problem: `holds ${count} signatures; a webhook carries at most ${MAX_SIGNATURE_ENTRIES} (one per secret that signs it)`,
      };
  }
  return undefined;
}
