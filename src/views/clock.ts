// The sandbox clock and the health answer of the control API.
import * as z from 'zod';
import { formatDuration } from '../domain/duration.js';
import { iso, isoTime } from './time.js';

/** GET /_sandbox/clock: sandbox time and how far it is ahead of the wall clock. */
export const clockView = z.object({
  now: isoTime.describe('sandbox time'),
  offset_ms: z.number().int().describe('how far sandbox time is ahead of the wall clock, in ms'),
  offset: z.string().describe('the same as a duration, e.g. "1h30m"'),
});

/** The clock view's TS type. */
export type ClockView = z.infer<typeof clockView>;

/** POST /_sandbox/clock/advance: the clock after the move and how many timed jobs ran. */
export const clockAdvanceView = clockView.extend({ jobs_run: z.number().int().describe('timed jobs that came due and ran') });

/** The clock advance answer's TS type. */
export type ClockAdvanceView = z.infer<typeof clockAdvanceView>;

/** GET /_sandbox/health. */
export const healthView = z.object({ status: z.literal('ok'), version: z.string(), time: isoTime.describe('sandbox time') });

/** The health answer's TS type. */
export type HealthView = z.infer<typeof healthView>;

/** The clock at `now` (sandbox ms), `offsetMs` ahead of the wall clock. */
export function toClockView(now: number, offsetMs: number): ClockView {
  return { now: iso(now), offset_ms: offsetMs, offset: formatDuration(offsetMs) };
}

/** The health answer at sandbox time `now`. */
export function toHealthView(version: string, now: number): HealthView {
  return { status: 'ok', version, time: iso(now) };
}
