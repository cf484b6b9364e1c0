// AES-256-CBC for /api/s2s/encrypt and encrypted webhooks, following docs/decisions.md: the
// widespread PHP convention, so merchants' existing openssl_encrypt code works unchanged.
// The sandbox emits only the canonical form but accepts the near-misses merchants commonly
// send (single base64, dropped '=' padding), saying so in warnings; everything else fails
// with a message that names the likely mistake, because "decryption failed" alone is useless.

import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { SandboxError } from '../errors.js';

/** The two terminal credentials the cipher is derived from. */
export interface TerminalKeys {
  publicKey: string;
  privateKey: string;
}

/** Result of decryptText: the plaintext plus one sentence per tolerated deviation from the canonical form. */
export interface DecryptResult {
  plaintext: string;
  warnings: string[];
}

const ALGORITHM = 'aes-256-cbc';
const PARAM = 'encrypted_data';
const BASE64_TEXT = /^[A-Za-z0-9+/]*={0,2}$/;

const SINGLE_BASE64_WARNING = "encrypted_data was base64-encoded once; the gateway's form is base64 applied twice";
const PADDING_WARNING = "base64 '=' padding was missing; it was accepted";

function fail(message: string): SandboxError {
  return new SandboxError('decryption_failed', message, PARAM);
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

// Derived once per terminal key pair: every encrypted request and webhook of a terminal uses the same.
const derived = new Map<string, { key: Buffer; iv: Buffer }>();

/** key = first 32 bytes of lowercase hex sha256(privateKey) as ASCII; iv = first 16 bytes of lowercase hex sha256(publicKey) as ASCII */
export function deriveKeyAndIv(keys: TerminalKeys): { key: Buffer; iv: Buffer } {
  const id = `${keys.privateKey}\u0000${keys.publicKey}`;
  let pair = derived.get(id);
  if (!pair) {
    // PHP passes the hex digest string itself and openssl truncates it to the key/IV size,
    // so the key material is ASCII hex characters, not the raw digest bytes.
    pair = {
      key: Buffer.from(sha256Hex(keys.privateKey).slice(0, 32), 'ascii'),
      iv: Buffer.from(sha256Hex(keys.publicKey).slice(0, 16), 'ascii'),
    };
    // Bounded: key pairs come from the fixtures, but the CLI's encrypt/decrypt take any.
    if (derived.size >= 1000) derived.clear();
    derived.set(id, pair);
  }
  return pair;
}

/** Canonical ciphertext: base64(base64(AES-256-CBC PKCS#7)) i.e. what PHP base64_encode(openssl_encrypt($s,'AES-256-CBC',$key,0,$iv)) gives. */
export function encryptText(plaintext: string, keys: TerminalKeys): string {
  const { key, iv } = deriveKeyAndIv(keys);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  const raw = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  // openssl_encrypt with options=0 already returns base64; the PHP convention encodes that text again.
  return Buffer.from(raw.toString('base64'), 'ascii').toString('base64');
}

/** encryptText(...) followed by keys.publicKey unchanged: the encrypted_data field of /api/s2s/encrypt. */
export function buildEncryptedData(plaintext: string, keys: TerminalKeys): string {
  return encryptText(plaintext, keys) + keys.publicKey;
}

/**
 * Splits the public key of the terminal it names off encrypted_data (the credentials repository
 * finds that terminal, the one place that does: terminalOfEncryptedData). Throws SandboxError
 * decryption_failed "encrypted_data does not end with a known terminal public_key; append the
 * terminal's public_key unchanged after the ciphertext" when no terminal was found.
 */
export function splitEncryptedData(encryptedData: string, publicKey: string | undefined): { cipherText: string; publicKey: string } {
  if (publicKey === undefined || publicKey === '' || !encryptedData.endsWith(publicKey)) {
    throw fail(
      "encrypted_data does not end with a known terminal public_key; append the terminal's public_key unchanged after the ciphertext",
    );
  }
  return { cipherText: encryptedData.slice(0, encryptedData.length - publicKey.length), publicKey };
}

/** A strict base64 decode; repadded says the missing "=" padding had to be restored. */
interface Decoded {
  bytes: Buffer;
  repadded: boolean;
}

// Buffer.from(..., 'base64') silently skips junk, so validate first: a lenient decoder would turn
// a merchant's mistake into a confusing padding error instead of a precise one.
function decodeBase64(text: string): Decoded | undefined {
  if (text === '' || !BASE64_TEXT.test(text)) return undefined;
  const body = text.replace(/=+$/, '');
  const rest = body.length % 4;
  if (rest === 1) return undefined;
  const needed = rest === 0 ? 0 : 4 - rest;
  const given = text.length - body.length;
  if (given !== 0 && given !== needed) return undefined;
  return { bytes: Buffer.from(body + '='.repeat(needed), 'base64'), repadded: given === 0 && needed > 0 };
}

function describeNonBase64(text: string): string {
  const bad = [...text].findIndex((ch) => !/[A-Za-z0-9+/=]/.test(ch));
  if (bad >= 0) {
    return `encrypted_data is not base64: character ${JSON.stringify([...text][bad])} at position ${bad} is not in the base64 alphabet (A-Z a-z 0-9 + / =); send the ciphertext exactly as base64_encode produced it`;
  }
  return "encrypted_data is not base64: its length or '=' padding is impossible for base64, so it was probably truncated or altered; send the ciphertext exactly as base64_encode produced it";
}

/** Strict UTF-8 (a wrong key yields bytes that are not text); one decoder serves every call. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function decryptBytes(raw: Buffer, keys: TerminalKeys): string {
  const { key, iv } = deriveKeyAndIv(keys);
  const decipher = createDecipheriv(ALGORITHM, key, iv);
  let bytes: Buffer;
  try {
    bytes = Buffer.concat([decipher.update(raw), decipher.final()]);
  } catch {
    // With CBC the only failure left once the length is right is the PKCS#7 check, and a wrong
    // key or IV makes the last block random, so the padding is almost always what breaks.
    throw fail(
      "encrypted_data could not be decrypted: the padding is wrong, which means the private_key used to encrypt is not this terminal's private_key (or the IV was not derived from the public_key)",
    );
  }
  try {
    return UTF8.decode(bytes);
  } catch {
    throw fail(
      "encrypted_data decrypted to bytes that are not valid UTF-8 text: encrypt the UTF-8 bytes of the query string (garbage here can also mean the private_key is not this terminal's)",
    );
  }
}

function decryptCanonical(cipherText: string, keys: TerminalKeys): DecryptResult {
  if (cipherText === '') {
    throw fail('encrypted_data has no ciphertext before the public_key; put the encrypted query string in front of it');
  }
  const outer = decodeBase64(cipherText);
  if (outer === undefined) throw fail(describeNonBase64(cipherText));
  const warnings: string[] = [];
  let repadded = outer.repadded;
  let raw: Buffer | undefined;
  // Random ciphertext bytes are practically never all base64 characters, so "decodes to base64
  // text whose decoding is whole AES blocks" reliably identifies the double-encoded form.
  const innerText = outer.bytes.toString('latin1');
  const inner = decodeBase64(innerText);
  if (inner !== undefined && inner.bytes.length > 0 && inner.bytes.length % 16 === 0) {
    raw = inner.bytes;
    repadded ||= inner.repadded;
  } else if (outer.bytes.length > 0 && outer.bytes.length % 16 === 0) {
    raw = outer.bytes;
    warnings.push(SINGLE_BASE64_WARNING);
  } else {
    const length = inner !== undefined ? inner.bytes.length : outer.bytes.length;
    throw fail(
      `encrypted_data decodes to ${length} bytes, which is not a multiple of 16: the ciphertext was truncated or is not AES-256-CBC output; send base64(base64(openssl_encrypt(...))) in full`,
    );
  }
  if (repadded) warnings.push(PADDING_WARNING);
  return { plaintext: decryptBytes(raw, keys), warnings };
}

/** Decrypts canonical double-base64, and also tolerates single base64 and missing '=' padding (each adds a warning sentence to warnings, e.g. "encrypted_data was base64-encoded once; the gateway's form is base64 applied twice"). */
export function decryptText(cipherText: string, keys: TerminalKeys): DecryptResult {
  if (cipherText.includes(' ')) {
    // A form body that was not URL-encoded turns every '+' into a space (only the single-base64
    // form can hold a '+': base64 of base64 text never does). Never accept the
    // repaired text silently (the merchant's live integration would break), but try it so the
    // message can confirm the diagnosis.
    let confirmed = false;
    try {
      decryptCanonical(cipherText.replaceAll(' ', '+'), keys);
      confirmed = true;
    } catch {
      confirmed = false;
    }
    throw fail(
      "encrypted_data contains spaces: a '+' was turned into a space because the form field was not URL-encoded; URL-encode encrypted_data" +
        (confirmed ? " (with the spaces turned back into '+' it decrypts correctly)" : ''),
    );
  }
  return decryptCanonical(cipherText, keys);
}

/** Decrypts a webhook's `data` parameter (sent with encryption_method=aes256) to its query string. */
export function decryptWebhookData(data: string, keys: TerminalKeys): string {
  return decryptText(data, keys).plaintext;
}
