// The control sign-in form (POST /_sandbox/login), read by http/control/routes.ts.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** POST /_sandbox/login form. */
export const loginForm = lazySchema(() => z.object({ token: z.string().describe('the --control-token value') }));
