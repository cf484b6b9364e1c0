// The /v1/ token object and the card summary that tokens and payments show: never the number.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { isoOrNull, isoTime } from './time.js';

/** The card summary a token or payment shows: never the number. */
export const cardView = lazySchema(() =>
  z
    .object({
      brand: z.string().describe('the card network, e.g. VISA, MASTERCARD'),
      last4: z.string().describe('the last four digits'),
      exp_month: z.number().int().describe('the expiry month, 1 to 12'),
      exp_year: z.number().int().describe('the expiry year, four digits'),
    })
    .meta({ id: 'Card' }),
);

/** A token as the API shows it. */
export const tokenView = lazySchema(() =>
  z
    .object({
      id: z.string().describe('tok_... (a predefined test token such as tok_visa, or one returned by POST /v1/tokens)'),
      object: z.literal('token'),
      card: cardView(),
      predefined: z.boolean().describe('true for the test tokens every merchant can use'),
      off_session_payment: z
        .string()
        .nullable()
        .describe(
          'the customer-initiated payment (setup_future_usage off_session) that stored it for merchant-initiated charges; null until one was authorized',
        ),
      created_at: isoTime.nullable().describe('ISO 8601 UTC; null for predefined tokens'),
    })
    .meta({ id: 'Token' }),
);

/** The token object's TS type. */
export type TokenView = z.infer<ReturnType<typeof tokenView>>;

/** What a token view is made from (the tokens service's record has these and more). */
export interface TokenFields {
  id: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  predefined: boolean;
  createdAt: number | null;
  offSessionPaymentId: string | null;
}

/** The token object: brand, last4 and expiry, never the number. */
export function toTokenView(token: TokenFields): TokenView {
  return {
    id: token.id,
    object: 'token',
    card: { brand: token.brand, last4: token.last4, exp_month: token.expMonth, exp_year: token.expYear },
    predefined: token.predefined,
    off_session_payment: token.offSessionPaymentId,
    created_at: isoOrNull(token.createdAt),
  };
}
