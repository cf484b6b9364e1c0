// The `since` of the delivery and event lists and of retry-failed: a duration back from now
// ("10m") or an ISO time ("2026-01-15T12:00:00Z").
import { parseDuration } from './duration.js';

/** Reads `since` as a duration back from now ("10m") or an ISO time; undefined when it is neither. */
export function parseSince(text: string, now: number): number | undefined {
  const ms = parseDuration(text);
  if (ms !== undefined) return now - ms;
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
}
