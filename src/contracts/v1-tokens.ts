// POST /v1/tokens and the card object that payments take too: {number, exp_month, exp_year, cvc}.
// Descriptions are the hints in error messages and the OpenAPI text.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { luhnValid, normaliseCardNumber } from '../domain/card.js';

/** A card as the /v1/ API takes it. The number and cvc are never echoed in errors or answers. */
export const cardSchema = lazySchema(() =>
  z
    .strictObject({
      number: z
        .string()
        .transform(normaliseCardNumber)
        .refine((n) => /^\d{13,19}$/.test(n), {
          message: 'card.number must be 13-19 digits (spaces allowed); use a test card such as 4242424242424242',
        })
        .refine(luhnValid, { message: 'card.number fails the Luhn check: a digit is wrong; use a test card such as 4242424242424242' })
        // 13-19 digits once spaces and dashes are dropped (the Luhn check is for the validator alone).
        .meta({ pattern: '^[\\s-]*(?:\\d[\\s-]*){13,19}$' })
        .describe('the card number as a string of 13-19 digits, e.g. "4242424242424242"'),
      exp_month: z.number().int().min(1).max(12).describe('the expiry month, a whole number from 1 to 12'),
      exp_year: z
        .number()
        .int()
        .refine((y) => (y >= 0 && y <= 99) || (y >= 2000 && y <= 2099), {
          message: 'card.exp_year must be a four-digit year such as 2030 (or two digits such as 30)',
        })
        .transform((y) => (y < 100 ? 2000 + y : y))
        .meta({
          anyOf: [
            { minimum: 0, maximum: 99 },
            { minimum: 2000, maximum: 2099 },
          ],
        })
        .describe('the expiry year, four digits such as 2030 (two digits are read as 20xx)'),
      cvc: z
        .string()
        .regex(/^\d{3,4}$/)
        .describe('the card security code, a string of 3 or 4 digits such as "123"'),
    })
    .describe('a card: {number, exp_month, exp_year, cvc}'),
);

/** A validated card. */
export type CardInput = z.output<ReturnType<typeof cardSchema>>;

/** POST /v1/tokens. */
export const createTokenSchema = lazySchema(() => z.strictObject({ card: cardSchema() }));
