// AppDeps.forcedScript: the script a request forces (its X-Sandbox-Outcome word, or a scenario entry) before the test-card table is consulted.
// Precedence: the X-Sandbox-Outcome header, then the scenario queue, then (in the payment
// service) the test card or VPA, then the default.
import { parseDecimalAmount } from '../domain/money.js';
import { OUTCOME_VOCABULARY, parseOutcomeSpec } from '../domain/outcome-spec.js';
import { DECLINE_MESSAGES } from '../domain/outcomes.js';
import { SandboxError } from '../errors.js';
import type { Services } from '../services/services.js';
import type { PaymentFacts } from '../services/scenarios.js';
import type { OutcomeOverride } from './app-env.js';

/** The request header that forces one request's outcome. */
export const OUTCOME_HEADER = 'X-Sandbox-Outcome';

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** What a payment request offers to scenario matching, per API family. */
export function paymentFacts(
  family: 's2s' | 'v1',
  input: Record<string, unknown>,
  terNo: number | undefined,
  merchantId?: string,
): PaymentFacts {
  if (family === 's2s') {
    return {
      terNo,
      merchantId,
      reference: text(input.reference),
      amount: parseDecimalAmount(input.bill_amt, text(input.bill_currency)),
      mop: text(input.mop),
    };
  }
  return {
    merchantId,
    reference: text(input.reference),
    amount: typeof input.amount === 'number' ? input.amount : undefined,
    mop: text(input.method),
  };
}

/** Builds the override over the scenario queue. */
export function createOutcomeOverride(services: Services): OutcomeOverride {
  return (c, family, input, terminal) => {
    const header = c.req.header(OUTCOME_HEADER);
    if (header !== undefined) {
      const outcome = parseOutcomeSpec(header);
      if (!outcome) {
        throw new SandboxError(
          'parameter_invalid',
          `${OUTCOME_HEADER} must be one of ${OUTCOME_VOCABULARY} (decline codes: ${Object.keys(DECLINE_MESSAGES).join(', ')}), got ${JSON.stringify(header.slice(0, 60))}; or leave the header out`,
          OUTCOME_HEADER,
        );
      }
      c.set('script', `${OUTCOME_HEADER}: ${header}`);
      return outcome;
    }
    // /v1/ requests carry no terminal: their merchant is the one bearerAuth found.
    const merchantId = terminal?.merchantId ?? c.get('merchant')?.id;
    return services.scenarios.take(paymentFacts(family, input, terminal?.terNo, merchantId), (label) => c.set('script', label));
  };
}
