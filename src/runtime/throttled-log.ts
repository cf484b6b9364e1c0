// Error lines that can repeat many times a second (a worker retrying against a full disk or a
// locked database) are written once per window, with a count of the repeats left out, so the log
// says what is wrong without burying everything else.
import type { Logger } from './logger.js';

/** How long a repeated line stays quiet after it was written. */
export const THROTTLE_WINDOW_MS = 30_000;

/** Writes each kind of error line at most once per `windowMs` (real time). */
export class ThrottledLog {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly windowMs = THROTTLE_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Logs `message` unless a line of the same `kind` was logged within the window; then only counts it. */
  error(kind: string, message: string): void {
    const now = this.now();
    const seen = this.last.get(kind);
    if (seen && now - seen.at < this.windowMs) {
      seen.suppressed++;
      return;
    }
    const repeats =
      seen && seen.suppressed > 0
        ? ` (${seen.suppressed} more like it in the last ${Math.round((now - seen.at) / 1000)} s were not logged)`
        : '';
    this.logger.error(message + repeats);
    this.last.set(kind, { at: now, suppressed: 0 });
  }
}
