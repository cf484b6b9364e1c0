// Identifiers. Object ids carry a type prefix (pay_, evt_, ...) so a merchant can tell them
// apart in logs; transIDs are numeric strings like the gateway's; page tokens are unguessable.
import { randomBytes, randomInt } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A prefixed random id such as pay_3kTMd9Qx81LbZc0a (96 bits of randomness). */
export function newId(prefix: string): string {
  const bytes = randomBytes(16);
  let out = '';
  for (let i = 0; i < 16; i++) out += ALPHABET[bytes[i]! % 62];
  return `${prefix}_${out}`;
}

/** A gateway-style numeric transaction id, 15 digits, never starting with 0. */
export function newTransId(): string {
  return String(randomInt(1, 10)) + String(randomInt(0, 1e7)).padStart(7, '0') + String(randomInt(0, 1e7)).padStart(7, '0');
}

/** An unguessable URL token (256 bits, base64url). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}
