// POST /_sandbox/clock/advance: how far to move the sandbox clock.
import * as z from 'zod';
import { clockAdvanceProblem } from '../domain/duration.js';
import { POSITIVE_DURATION_PATTERN } from './patterns.js';

/** POST /_sandbox/clock/advance body. */
export const advanceSchema = z.object({
  duration: z
    .string()
    .superRefine((text, ctx) => {
      const problem = clockAdvanceProblem(text);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ pattern: POSITIVE_DURATION_PATTERN })
    .describe('a duration with a unit such as "15m", "90s", "2h" or "1d" (at most 3650d); never negative'),
});
