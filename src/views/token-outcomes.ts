// What the control API answers about a token's scripted future (http/control/tokens.ts).
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** A token's scripted outcomes: what its next charges do, in order. */
export const tokenOutcomesView = lazySchema(() =>
  z
    .object({
      object: z.literal('token_outcomes'),
      token: z.string().describe('tok_...'),
      merchant: z.string().describe('the merchant whose token it is'),
      outcomes: z.array(z.string()).describe("what the next charges do, one each; once used up, the card's own outcome applies"),
      removed: z.number().int().optional().describe('DELETE: how many waiting outcomes were dropped'),
    })
    .meta({ id: 'TokenOutcomes' }),
);

/** The token outcomes view's TS type. */
export type TokenOutcomesView = z.infer<ReturnType<typeof tokenOutcomesView>>;

/** A token's scripted outcomes as the control API shows them. */
export function toTokenOutcomesView(token: string, merchant: string, outcomes: string[], removed?: number): TokenOutcomesView {
  return { object: 'token_outcomes', token, merchant, outcomes, ...(removed === undefined ? {} : { removed }) };
}
