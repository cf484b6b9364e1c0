// The retry profiles of docs/decisions.md. A profile is the list of waits after each failed attempt:
// its length is the number of retries, so attempts = length + 1.
import { parseDuration } from './duration.js';

/** Waits in milliseconds between consecutive attempts of one delivery. */
export type RetryProfile = readonly number[];

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

/** The named profiles: dev is fast for a laptop, realistic mirrors a production gateway. */
export const RETRY_PROFILES: Record<string, RetryProfile> = {
  dev: [1 * S, 2 * S, 4 * S, 8 * S, 16 * S, 32 * S],
  realistic: [5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 10 * H],
  none: [],
};

/** Reads a profile name or a comma list like "1s,5s,1m"; undefined when it is neither. */
export function parseRetryProfile(text: string): RetryProfile | undefined {
  const named = RETRY_PROFILES[text];
  if (named) return named;
  const waits = text.split(',').map((part) => parseDuration(part));
  if (waits.length === 0 || waits.some((ms) => ms === undefined || ms <= 0)) return undefined;
  return waits as number[];
}

/** When attempt number `attemptsMade` (1-based) failed, how long until the next; undefined = give up. */
export function nextRetryDelay(profile: RetryProfile, attemptsMade: number): number | undefined {
  return profile[attemptsMade - 1];
}
