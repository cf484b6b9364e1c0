// How views write times: ISO 8601 UTC for the JSON APIs (one iso() for every view), and the
// gateway's tdate for the S2S answers (spec §2.2 "YYYY-MM-DD HH:MM:SS.ffffff", 2.4 "YYYY-MM-DD HH:MM:SS").
import * as z from 'zod';

/** Sandbox-clock milliseconds as ISO 8601 UTC ("2026-01-15T12:00:00.000Z"). */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** iso() of a time that may be unset: null stays null. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms);
}

/** The schema of a time written by iso(). */
export const isoTime = z.string().meta({ format: 'date-time', description: 'an ISO 8601 UTC time, e.g. "2026-01-15T12:00:00.000Z"' });

/** Formats sandbox-clock milliseconds as the gateway's tdate, with microseconds when asked. */
export function formatTdate(ms: number, micro: boolean): string {
  const text = iso(ms); // 2026-01-15T12:00:00.123Z
  const base = `${text.slice(0, 10)} ${text.slice(11, 19)}`;
  return micro ? `${base}.${text.slice(20, 23)}000` : base;
}
