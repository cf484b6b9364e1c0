// The ids a request touched, read from its path, query and bodies: object ids by their prefixes
// (pay_, cs_, evt_...), the gateway's numeric transIDs, and the tokens of the customer pages and
// the S2S status URL. The request journal keeps them, so a payment's requests are found by id.
import { isTransIdShaped } from './journal-mask.js';

/** Object ids the journal indexes by their prefix (ids.ts newId: the time, then 8 random base62 characters). */
const OBJECT_ID = /\b(?:pay|cs|dp|evt|rfd|st|tok|we|whd)_[0-9A-Za-z]{16}\b/g;
/** Whole runs of 15 digits or more (greedy, so a longer run is never cut to 15): a transID is a run of exactly 15. */
const DIGIT_RUN_15 = /\d{15,}/g;
/** A page or status token after its route: 9 base36 characters of time, then 34 base64url ones (ids.ts newToken). */
const PAGE_TOKEN = /\/(?:authenticate|pay|status)\/([0-9a-z]{9}[A-Za-z0-9_-]{34})(?![A-Za-z0-9_-])/g;

/** The most ids one request is kept under (a list answer names many; the first ones are what it was about). */
export const MAX_TOUCHED_IDS = 32;

/** Every id named in `texts`, each once, in the order found, at most MAX_TOUCHED_IDS. */
export function touchedIds(texts: ReadonlyArray<string | null | undefined>): string[] {
  const found = new Set<string>();
  // Every request's texts are read (the journal keeps each request's ids), so each pattern runs only
  // where it can match, and match() hands back the strings without a match object each.
  for (const text of texts) {
    if (!text) continue;
    if (text.includes('_')) for (const id of text.match(OBJECT_ID) ?? []) found.add(id);
    for (const run of text.match(DIGIT_RUN_15) ?? []) if (isTransIdShaped(run)) found.add(run);
    if (text.includes('/authenticate/') || text.includes('/pay/') || text.includes('/status/'))
      for (const match of text.matchAll(PAGE_TOKEN)) if (match[1]) found.add(match[1]);
    if (found.size >= MAX_TOUCHED_IDS) break;
  }
  return [...found].slice(0, MAX_TOUCHED_IDS);
}
