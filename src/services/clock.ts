// The sandbox clock. Every timestamp and every due time is read from it, so tests can fix it and
// `sandbox clock advance` can move it forward to make expiries and retries happen now.

import { SandboxError } from '../errors.js';

/** Sandbox time never goes past the end of year 9999: dates must stay printable as ISO 8601. */
const LATEST = Date.UTC(9999, 11, 31);

function checkedAdvance(now: number, ms: number): void {
  if (now + ms > LATEST) {
    throw new SandboxError('parameter_invalid', `advancing by that much would move sandbox time past the year 9999; advance by less (now ${new Date(now).toISOString()})`, 'duration');
  }
}

/** A clock that can be moved forward. */
export interface Clock {
  /** Milliseconds since the epoch, sandbox time. */
  now(): number;
  /** Moves sandbox time forward by `ms`; returns the new time. */
  advance(ms: number): number;
}

/** Wall-clock time plus the total of every advance. */
export function systemClock(): Clock {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance(ms) {
      checkedAdvance(Date.now() + offset, ms);
      offset += ms;
      return Date.now() + offset;
    },
  };
}

/** A clock that stands still at `start` until advanced (tests). */
export function fixedClock(start = Date.UTC(2026, 0, 15, 12, 0, 0)): Clock {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      checkedAdvance(now, ms);
      now += ms;
      return now;
    },
  };
}
