// POST /_sandbox/transactions/{id}/authenticate: the payment (a /v1/ pay_... id) or the S2S
// transaction after its challenge was completed, with the challenge's state and where the customer returns.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { paymentView } from './payment.js';
import { s2sStatusView } from './s2s.js';

const completed = () => ({
  authentication: z.string().describe('the challenge state after it: passed, failed, canceled or expired'),
  redirect_url: z.string().describe('where the customer returns'),
});

/** The authenticate answer: a payment or a transaction, plus the challenge's outcome. */
export const authenticateResultView = lazySchema(() => z.union([paymentView().extend(completed()), s2sStatusView().extend(completed())]));

/** The authenticate answer's TS type. */
export type AuthenticateResultView = z.infer<ReturnType<typeof authenticateResultView>>;
