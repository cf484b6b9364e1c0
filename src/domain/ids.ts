// Identifiers. Object ids carry a type prefix (pay_, evt_, ...) so a merchant can tell them
// apart in logs; transIDs are numeric strings like the gateway's; page tokens are unguessable.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn from a pool refilled 4 KiB at a time: one crypto call per ~100 ids
// instead of one per id (a create makes five). The pool is replaced, never overwritten, so bytes
// already handed out do not change.
let pool = Buffer.alloc(0);
let offset = 0;

function randomChunk(n: number): Buffer {
  if (offset + n > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  const chunk = pool.subarray(offset, offset + n);
  offset += n;
  return chunk;
}

/** A prefixed random id such as pay_3kTMd9Qx81LbZc0a (about 95 bits of randomness). */
export function newId(prefix: string): string {
  const bytes = randomChunk(16);
  let out = '';
  for (let i = 0; i < 16; i++) out += ALPHABET[bytes[i]! % 62];
  return `${prefix}_${out}`;
}

/** A gateway-style numeric transaction id, 15 digits, never starting with 0. */
export function newTransId(): string {
  const bytes = randomChunk(15);
  let out = String((bytes[0]! % 9) + 1);
  for (let i = 1; i < 15; i++) out += String(bytes[i]! % 10);
  return out;
}

/** An unguessable URL token (256 bits, base64url). */
export function newToken(): string {
  return randomChunk(32).toString('base64url');
}
