// Deciding a customer authentication: the control API's body (no browser) and the form of the
// customer's authentication page (/authenticate/:token), which the page reads itself.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { AUTHENTICATION_OUTCOMES, orList } from '../domain/vocabularies.js';

/** POST /_sandbox/transactions/:transID/authenticate body. */
export const authenticateSchema = lazySchema(() =>
  z.object({
    outcome: z.enum(AUTHENTICATION_OUTCOMES).describe(orList(AUTHENTICATION_OUTCOMES, true)),
  }),
);

/** POST /authenticate/:token form: the page reads it itself (a customer's browser sends it); these are the fields it takes. */
export const authenticatePageForm = lazySchema(() =>
  z.object({
    csrf: z.string().describe('the token of the page that sent the form'),
    action: z.enum(['approve', 'decline', 'cancel', 'submit']).optional().describe('the button pressed'),
    otp: z.string().optional().describe('the one-time code, 4 to 8 digits (OTP challenges)'),
  }),
);
