// POST /api/transactions/refund-request (spec §4.3): JSON {transID, refundAmount, public_key}; the
// answer carries exactly the spec §2.4 fields. The rules live in services/s2s-refunds.ts.
import { Hono } from 'hono';
import * as z from 'zod';
import { safeEqual } from '../crypto/signature.js';
import { formatDecimalAmount } from '../domain/money.js';
import { ORDER_STATUS } from '../domain/order-status.js';
import { SandboxError } from '../errors.js';
import type { RefundAccepted } from '../services/s2s-refunds.js';
import type { Services } from '../services/services.js';
import type { Terminal } from '../store/credentials-repo.js';
import type { AppDeps, AppEnv } from './app.js';
import { formatTdate } from './tdate.js';
import { readJson } from './validation.js';
import { validate } from '../contracts/validate.js';

const AMOUNT = /^\d{1,8}(\.\d{1,2})?$/;
const AMOUNT_HINT = 'a decimal amount greater than 0 with at most 2 decimals and at most 99999999.99, e.g. "5.00"';

/** spec §2.4 request fields. Unknown fields are ignored, as on /api/s2s. */
export const refundRequestSchema = z.object({
  transID: z
    .union([z.string().trim().min(1).max(64), z.number().int().positive().transform(String)])
    .describe('the transID of the payment to refund, as returned by /api/s2s'),
  refundAmount: z
    .union([z.string().trim(), z.number().transform(String)])
    .refine((text) => AMOUNT.test(text) && /[1-9]/.test(text), `refundAmount must be ${AMOUNT_HINT}`)
    .describe(AMOUNT_HINT),
  public_key: z.string().min(1).describe('the public_key of the terminal the payment was made on, e.g. "pk_test_1001"'),
});

/** The terminal with this public_key, compared in constant time; 401 when none has it. */
function terminalByPublicKey(services: Services, publicKey: string): Terminal {
  let found: Terminal | undefined;
  for (const terminal of services.credentials.terminals()) if (safeEqual(terminal.publicKey, publicKey)) found = terminal;
  if (!found) {
    throw new SandboxError('invalid_credentials', 'public_key is not the public_key of any terminal; copy it from the terminal settings (the sandbox seeds pk_test_1001)', 'public_key');
  }
  return found;
}

/** The spec §2.4 answer: exactly these fields; bill_amt is the amount of this refund, as a number. */
export function refundResponse(accepted: RefundAccepted) {
  const { refund, transaction: t, left } = accepted;
  const money = (minor: number) => `${formatDecimalAmount(minor, refund.currency)} ${refund.currency}`;
  return {
    order_status: String(ORDER_STATUS.refundRequested.code),
    message: `Refund of ${money(refund.amount)} accepted; ${money(left)} is left to refund`,
    status: ORDER_STATUS.refundRequested.text,
    bill_amt: Number(formatDecimalAmount(refund.amount, refund.currency)),
    transID: t.transId,
    tdate: formatTdate(refund.createdAt, false),
    bill_currency: refund.currency,
    response: 'Refund request processed: the outcome follows by webhook (refund.succeeded or refund.failed)',
    reference: t.reference,
  };
}

/** The refund-request route. */
export function refundRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { services } = deps;

  app.post('/api/transactions/refund-request', async (c) => {
    const input = validate(refundRequestSchema, await readJson(c));
    const terminal = terminalByPublicKey(services, input.public_key);
    const accepted = services.s2sRefunds.request({ transId: input.transID, refundAmount: input.refundAmount }, terminal);
    return c.json(refundResponse(accepted));
  });

  return app;
}
