// The control API's token scripts: POST /_sandbox/tokens/{id}/outcomes queues what the next charges
// on a merchant's own token do; GET and DELETE take the merchant in the query (http/control/tokens.ts).
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { MAX_SCRIPTED_OUTCOMES, TOKEN_OUTCOMES } from '../domain/outcomes.js';
import { wordsPattern } from './patterns.js';

const merchant = lazySchema(() =>
  z.string().min(1).max(100).optional().describe("the token's merchant, e.g. mer_sandbox (default: the first merchant of the fixtures)"),
);

/** One word of a token's script: approve or a decline code of the test-card table. */
export const tokenOutcomeWord = lazySchema(() =>
  z
    .string()
    .refine((word) => TOKEN_OUTCOMES.includes(word), {
      error: (issue) => `each outcome must be one of ${TOKEN_OUTCOMES.join(', ')}; got ${JSON.stringify(String(issue.input).slice(0, 40))}`,
    })
    .meta({ pattern: wordsPattern(TOKEN_OUTCOMES) }),
);

/** POST /_sandbox/tokens/{id}/outcomes body. */
export const scriptTokenSchema = lazySchema(() =>
  z.strictObject({
    outcomes: z
      .array(tokenOutcomeWord())
      .min(1)
      .max(MAX_SCRIPTED_OUTCOMES)
      .describe(`what the next charges on the token do, one each, e.g. ["approve", "insufficient_funds"]: ${TOKEN_OUTCOMES.join(', ')}`),
    merchant: merchant(),
  }),
);

/** GET and DELETE /_sandbox/tokens/{id}/outcomes query. */
export const tokenOutcomesQuery = lazySchema(() => z.strictObject({ merchant: merchant() }));
