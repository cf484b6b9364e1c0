// The dashboard's requests (/_sandbox/): the list query (tab, filters, page) and the forms of its
// Approve / Decline and Replay buttons, each carrying the CSRF token of the page.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { AUTHENTICATION_OUTCOMES, DASHBOARD_TABS } from '../domain/vocabularies.js';

const blank = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : typeof value === 'string' ? value.trim() : value;

/** GET /_sandbox/ and /_sandbox/dashboard/fragment query. */
export const dashboardQuery = lazySchema(() =>
  z
    .object({
      tab: z
        .enum(DASHBOARD_TABS)
        .optional()
        .describe(`one of ${DASHBOARD_TABS.join(', ')}`),
      merchant: z.preprocess(blank, z.string().max(100).optional()).describe('a merchant id such as mer_sandbox: only its rows'),
      status: z.preprocess(blank, z.string().max(40).optional()).describe("a status of the tab's list (see the Status filter)"),
      type: z
        .preprocess(
          blank,
          z
            .string()
            .regex(/^[a-z0-9_.]{1,64}$/)
            .optional(),
        )
        .describe('an event type such as payment.authorized'),
      q: z.preprocess(blank, z.string().max(200).optional()).describe('an id or reference, matched exactly (at most 200 characters)'),
      starting_after: z.preprocess(blank, z.string().max(100).optional()).describe('the id of the last row of the previous page'),
    })
    .strict(),
);

/** POST /_sandbox/dashboard/authenticate form. */
export const dashboardAuthenticateForm = lazySchema(() =>
  z.object({
    csrf: z.string(),
    subject: z.enum(['transaction', 'payment']).describe('"transaction" (an S2S transID) or "payment" (a /v1/ pay_... id)'),
    id: z.string().min(1).max(100).describe('the transID or payment id'),
    outcome: z.enum(AUTHENTICATION_OUTCOMES).extract(['approve', 'decline']).describe('"approve" or "decline"'),
    back: z
      .string()
      .regex(/^\/_sandbox\/[^\s]*$/)
      .optional()
      .describe('a dashboard path under /_sandbox/ to return to'),
  }),
);

/** POST .../replay form. */
export const dashboardReplayForm = lazySchema(() => z.object({ csrf: z.string() }));
