// The sandbox clock. Every timestamp and every due time is read from it, so tests can fix it and
// `sandbox clock advance` can move it forward to make expiries and retries happen now. It only
// ever moves forward: its offset is kept in the database (sandbox_clock), so a restart resumes it.

import { SandboxError } from '../errors.js';

/** Sandbox time never goes past the end of year 9999: dates must stay printable as ISO 8601. */
const LATEST = Date.UTC(9999, 11, 31);

function checkedAdvance(now: number, ms: number): void {
  if (now + ms > LATEST) {
    throw new SandboxError(
      'parameter_invalid',
      `advancing by that much would move sandbox time past the year 9999; advance by less (now ${new Date(now).toISOString()})`,
      'duration',
    );
  }
}

/** A clock that can be moved forward. */
export interface Clock {
  /** Milliseconds since the epoch, sandbox time. */
  now(): number;
  /** Moves sandbox time forward by `ms`; returns the new time. */
  advance(ms: number): number;
  /** How far sandbox time is ahead of the wall clock, in ms. */
  offset(): number;
  /** Resumes from the saved state again, after a reset or an import replaced it. */
  reload(): void;
  /**
   * Runs `work` (synchronous) with now() reading `at` when that is earlier: a timed job that falls
   * due at `at` stamps what it does with `at`, even when it runs later (after `clock advance`, or a
   * restart), so a session that expired at 12:15 says 12:15, not the time of the catch-up.
   */
  asOf<T>(at: number, work: () => T): T;
}

/** asOf for a clock whose own reading is `now`: pins it to `at` while `work` runs. */
function pinned(now: () => number) {
  let pin: number | undefined;
  return {
    now: () => pin ?? now(),
    asOf<T>(at: number, work: () => T): T {
      const outer = pin;
      pin = Math.min(at, outer ?? now());
      try {
        return work();
      } finally {
        pin = outer;
      }
    },
  };
}

/** Where a system clock keeps its offset (store/clock-repo.ts). */
export interface ClockStorage {
  /** The saved offset (0 when none) and the newest sandbox time already recorded. */
  load(): { offsetMs: number; floor: number };
  /** Records the offset and the sandbox time it was set at. */
  save(offsetMs: number, at: number): void;
}

/** Wall-clock time plus the total of every advance, resumed from `storage` and never going backwards. */
export function systemClock(storage?: ClockStorage): Clock {
  let offset = 0;
  let last = 0;
  const resume = () => {
    const saved = storage?.load() ?? { offsetMs: 0, floor: 0 };
    // Not behind anything already recorded, even when the wall clock went back since it was saved.
    offset = Math.max(saved.offsetMs, saved.floor - Date.now());
    last = 0;
  };
  resume();
  // A wall clock stepped back while running makes sandbox time stand still, not run backwards.
  const reading = (wall = Date.now()) => (last = Math.max(last, wall + offset));
  const { now, asOf } = pinned(reading);
  return {
    now,
    asOf,
    advance(ms) {
      // One wall-clock reading for the target and the offset: two could straddle a millisecond and
      // save an offset 1 ms short of every advance made (a restart then resumes 1d 23h 59m ahead).
      const wall = Date.now();
      const target = reading(wall) + ms;
      checkedAdvance(target - ms, ms);
      offset = target - wall;
      last = target;
      storage?.save(offset, target);
      return target;
    },
    // One wall-clock reading for both terms: two could straddle a millisecond and report 1 ms short.
    offset: () => {
      const wall = Date.now();
      return reading(wall) - wall;
    },
    reload: resume,
  };
}

/** A clock that stands still at `start` until advanced (tests); nothing is saved or reloaded. */
export function fixedClock(start = Date.UTC(2026, 0, 15, 12, 0, 0)): Clock {
  let current = start;
  const { now, asOf } = pinned(() => current);
  return {
    now,
    asOf,
    advance(ms) {
      checkedAdvance(current, ms);
      current += ms;
      return current;
    },
    offset: () => current - start,
    reload: () => undefined,
  };
}
