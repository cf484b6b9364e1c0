// How much of a body past its limit is still read and dropped, and for how long, before the
// connection closes: the app's body limit (middleware/body-limit.ts) and `sandbox receive`
// (cli/receive.ts) both drop the rest of such a body, bounded, so the client reads the 413 instead
// of meeting a reset, and a client that never stops sending holds nothing for long.

/** At most this much more of the body is read and dropped... */
export const DRAIN_BYTES = 16 * 1024 * 1024;
/** ...for at most this long; a client still sending after that may see its connection reset. */
export const DRAIN_MS = 2000;
