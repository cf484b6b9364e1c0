// POST /_sandbox/clock/advance: how far to move the sandbox clock.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { clockAdvanceProblem, parseDuration } from '../domain/duration.js';
import { DURATION_PATTERN, POSITIVE_DURATION_PATTERN } from './patterns.js';

/** POST /_sandbox/clock/advance body. */
export const advanceSchema = lazySchema(() =>
  z.strictObject({
    duration: z
      .string()
      .superRefine((text, ctx) => {
        const problem = clockAdvanceProblem(text);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .meta({ pattern: POSITIVE_DURATION_PATTERN })
      .describe('a duration with a unit such as "15m", "90s", "2h" or "1d" (at most 3650d); never negative'),
    wait: z
      .string()
      .refine((text) => {
        const ms = parseDuration(text);
        return ms !== undefined && ms <= MAX_ADVANCE_WAIT_MS;
      }, 'wait must be a duration of at most 5m such as "10s", or "0s" not to wait')
      .meta({ pattern: DURATION_PATTERN })
      .optional()
      .describe(
        'real time to wait for the first attempt of each delivery the jump caused, at most 5m (default 0s: the report shows what was answered by then)',
      ),
  }),
);

/** The longest wait of an advance for its deliveries' first attempts. */
export const MAX_ADVANCE_WAIT_MS = 5 * 60_000;
