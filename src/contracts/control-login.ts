// The control sign-in form (POST /_sandbox/login), read by http/control/routes.ts.
import * as z from 'zod';

/** POST /_sandbox/login form. */
export const loginForm = z.object({ token: z.string().describe('the --control-token value') });
