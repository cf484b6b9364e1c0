// Identifiers. Object ids carry a type prefix (pay_, evt_, ...) so a merchant can tell them
// apart in logs; transIDs are numeric strings like the gateway's; page tokens are unguessable.
//
// Ids, transIDs and page tokens start with the time they were made, so each new row's key lands
// at the right-hand end of its B-tree index: a batch of creates then rewrites one leaf page per
// index instead of one page per row, which halves the cost of a create. Their random part keeps
// ids unique and tokens unguessable; secrets (webhook signing secrets, form CSRF tokens) are never
// looked up by value and stay fully random.
import { randomBytes } from 'node:crypto';

/** Base62 digits in ASCII order, so fixed-width base62 strings sort like the numbers they encode. */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Lowercase base36 digits, in ASCII order too, and all of them base64url characters. */
const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

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

/** `value` as exactly `width` digits of `alphabet` (most significant first), wrapping above the range. */
function fixedWidth(value: number, width: number, alphabet: string): string {
  const base = alphabet.length;
  let out = '';
  for (let i = 0; i < width; i++) {
    out = alphabet[value % base] + out;
    value = Math.floor(value / base);
  }
  return out;
}

/** `n` random base62 characters (5.95 bits each). */
function randomBase62(n: number): string {
  const bytes = randomChunk(n);
  let out = '';
  // 248 = 4 * 62: bytes at or above it would favour the first digits; they are redrawn.
  for (let i = 0; i < n; i++) {
    let b = bytes[i];
    while (b >= 248) b = randomChunk(1)[0];
    out += BASE62[b % 62];
  }
  return out;
}

/**
 * A prefixed id such as pay_0Nq3Xk8e3kTMd9Qx: 8 base62 characters of the wall-clock millisecond
 * (in order until the year 8900), then 8 random ones (about 48 bits). Ids are not secrets: every
 * lookup by id is also checked against the caller's merchant.
 */
export function newId(prefix: string): string {
  return `${prefix}_${fixedWidth(Date.now(), 8, BASE62)}${randomBase62(8)}`;
}

let lastTransId = 0;

/**
 * A gateway-style numeric transaction id: 15 digits, never starting with 0, increasing. It is the
 * wall-clock millisecond times 100, moved on by one when ids are made faster than that. A clock
 * stepped back or an imported snapshot can meet an id already stored: callers check.
 */
export function newTransId(): string {
  lastTransId = Math.max(lastTransId + 1, Date.now() * 100);
  return String(lastTransId);
}

/**
 * An unguessable URL token (authurl, authstatus, /pay/): 43 base64url characters, the first 9 the
 * wall-clock millisecond in base36, then 34 random ones (204 bits).
 */
export function newToken(): string {
  return fixedWidth(Date.now(), 9, BASE36) + randomChunk(26).toString('base64url').slice(0, 34);
}

/** A secret nobody looks up by value (signing secrets, CSRF tokens): 256 random bits, base64url. */
export function newSecret(): string {
  return randomChunk(32).toString('base64url');
}

/** A credential that is looked up by value, such as an API key: `prefix_` and 32 random base62 characters (190 bits). */
export function newApiKey(prefix: string): string {
  return `${prefix}_${randomBase62(32)}`;
}
