// JSON Schema patterns for request fields whose rule is a small grammar (durations, codes taken in
// any letter case, decimal amounts, http(s) URLs): the OpenAPI document states with them what the
// validators check with code, so a validating proxy or a generated client refuses what the sandbox
// refuses. They are ECMA-262 expressions without flags (JSON Schema has none), so "any case" is
// spelled out letter by letter, and valid under the u flag validators use (no escaped "-"); test/contract/request-schemas.test.ts sends the same inputs to the
// sandbox and to ajv and expects the same verdict.

/** `eur` -> `[eE][uU][rR]`: the word in any letter case. */
export function anyCase(word: string): string {
  return [...word]
    .map((ch) =>
      ch.toLowerCase() === ch.toUpperCase() ? ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : `[${ch.toLowerCase()}${ch.toUpperCase()}]`,
    )
    .join('');
}

/** A pattern matching exactly one of `words`, in any letter case when `caseless`, spaces around allowed when `trimmed`. */
export function wordsPattern(words: readonly string[], options: { caseless?: boolean; trimmed?: boolean } = {}): string {
  const escapeWord = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const alternatives = words.map((word) => (options.caseless ? anyCase(word) : escapeWord(word))).join('|');
  const space = options.trimmed ? '\\s*' : '';
  return `^${space}(?:${alternatives})${space}$`;
}

/** A whole or decimal number, as durations take it. */
const NUMBER = '\\d+(?:\\.\\d+)?';

/** One or more amounts with a unit, "15m" or "1h30m" (domain/duration.ts). */
export const DURATION_WITH_UNITS = `(?:${NUMBER}(?:ms|s|m|h|d))+`;

/** What parseDuration reads: seconds as a bare number, or amounts with units; spaces around. */
export const DURATION_PATTERN = `^\\s*(?:${NUMBER}|${DURATION_WITH_UNITS})\\s*$`;

/** A duration with units that is more than 0, never negative (POST /_sandbox/clock/advance). */
export const POSITIVE_DURATION_PATTERN = `^\\s*(?!(?:0+(?:\\.0+)?(?:ms|s|m|h|d))+\\s*$)${DURATION_WITH_UNITS}\\s*$`;

/** A duration back from now, or a time from an ISO date on (domain/since.ts parseSince). */
export const SINCE_PATTERN = `^(?:\\s*(?:${NUMBER}|${DURATION_WITH_UNITS})\\s*|\\d{4}-\\d{2}-\\d{2}.*)$`;

/**
 * The X-Sandbox-Fault header (domain/api-faults.ts): comma-separated faults, names in any case,
 * latency=DURATION, status=one of `statuses`, or a name without a value. The limits the pattern
 * cannot hold (latency at most 60 s, each fault once, one ending fault) are in the description.
 */
export function faultHeaderPattern(statuses: readonly number[]): string {
  const fault = `\\s*(?:${anyCase('latency')}\\s*=\\s*(?:${NUMBER}|${DURATION_WITH_UNITS})|${anyCase('status')}\\s*=\\s*(?:${statuses.join('|')})|${anyCase('reset')}|${anyCase('timeout')}|${anyCase('lost-answer')})\\s*`;
  return `^${fault}(?:,${fault})*$`;
}

/**
 * A fault spec (domain/fault-spec.ts): rulesets split by ";", each optional filters ending in
 * ":" and then a comma-separated list of fault names (`kinds`, or p) with an optional =value. The
 * values and filters are checked by the parser; the pattern holds the shape and the names.
 */
export function faultSpecPattern(kinds: readonly string[]): string {
  const item = `(?:${[...kinds, 'p'].join('|')})(?:=[^,;]*)?`;
  const set = `(?:[^;]*:)?\\s*${item}(?:\\s*,\\s*${item})*\\s*`;
  return `^(?:\\s*;)*${set}(?:(?:;\\s*)+${set})*(?:;\\s*)*$`;
}

/** A decimal amount above 0 with at most 8 digits and 2 decimals, spaces around (the S2S bill_amt and refundAmount). */
export const DECIMAL_AMOUNT_PATTERN = '^\\s*(?!0*(?:\\.0*)?\\s*$)\\d{1,8}(?:\\.\\d{1,2})?\\s*$';

/**
 * An absolute http(s) URL as domain/http-url.ts takes it: scheme (any case), "//", a host without
 * spaces or userinfo, an optional port, then a path, query or fragment without spaces. The
 * parser's further checks (a valid host, a port up to 65535) are what format: uri stands for.
 */
export const HTTP_URL_PATTERN = `^${anyCase('http')}[sS]?://[^\\s/?#@]+(?::\\d+)?(?:[/?#]\\S*)?$`;

/** A header value a caller chooses (`sandbox send`'s event type, id, content type): printable ASCII on one line, no space first. */
export const HEADER_VALUE_PATTERN = '^[\\x21-\\x7e][\\x20-\\x7e]*$';
