// The ids a request touched, read from its path, query and bodies: object ids by their prefixes
// (pay_, cs_, evt_...), the gateway's numeric transIDs, and the tokens of the customer pages and
// the S2S status URL. The request journal keeps them, so a payment's requests are found by id.
import { isTransIdShaped } from './journal-mask.js';

/** Object ids the journal indexes by their prefix (ids.ts newId: the time, then 8 random base62 characters). */
const OBJECT_ID = /\b(?:pay|cs|dp|evt|rfd|st|tok|we|whd)_[0-9A-Za-z]{16}\b/g;
const TRANS_ID = /(?<!\d)\d{15}(?!\d)/g;
/** A page or status token after its route: 9 base36 characters of time, then 34 base64url ones (ids.ts newToken). */
const PAGE_TOKEN = /\/(?:authenticate|pay|status)\/([0-9a-z]{9}[A-Za-z0-9_-]{34})(?![A-Za-z0-9_-])/g;

/** The most ids one request is kept under (a list answer names many; the first ones are what it was about). */
export const MAX_TOUCHED_IDS = 32;

/** Every id named in `texts`, each once, in the order found, at most MAX_TOUCHED_IDS. */
export function touchedIds(texts: ReadonlyArray<string | null | undefined>): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    for (const match of text.matchAll(OBJECT_ID)) found.add(match[0]);
    for (const match of text.matchAll(TRANS_ID)) if (isTransIdShaped(match[0])) found.add(match[0]);
    if (text.includes('/')) for (const match of text.matchAll(PAGE_TOKEN)) if (match[1]) found.add(match[1]);
    if (found.size >= MAX_TOUCHED_IDS) break;
  }
  return [...found].slice(0, MAX_TOUCHED_IDS);
}
