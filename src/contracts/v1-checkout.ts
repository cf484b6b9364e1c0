// The body of POST /v1/checkout/sessions (spec §4.4 plus the sandbox's optional fields); the
// session it answers with is src/views/checkout-session.ts. Descriptions are the hints in error messages and in OpenAPI.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { currencyCode, httpUrl, minorAmount } from './v1-common.js';
import { wordsPattern } from './patterns.js';
import { CHECKOUT_METHODS, type CheckoutMethod } from '../domain/vocabularies.js';

/** Methods that only exist in euros: iDEAL (Dutch banks) and SEPA Direct Debit. */
export const EUR_ONLY_METHODS: ReadonlySet<string> = new Set<CheckoutMethod>(['ideal', 'sepa']);

/** Session lifetime bounds in seconds (docs/decisions.md: spec §8 says "short-lived" without a number). */
export const EXPIRES_IN = { min: 60, max: 86_400, default: 1_800 } as const;

/** POST /v1/checkout/sessions. Unknown fields are refused so a typo does not pass silently. */
export const checkoutSessionSchema = lazySchema(() =>
  z
    .strictObject({
      amount: minorAmount('the amount to charge'),
      currency: currencyCode(),
      methods: z
        .array(z.enum(CHECKOUT_METHODS).describe(`one of ${CHECKOUT_METHODS.map((method) => JSON.stringify(method)).join(', ')}`))
        .min(1)
        .meta({ uniqueItems: true })
        .describe('a non-empty list of distinct methods from "card", "ideal", "sepa", e.g. ["card", "ideal"]'),
      branding: z
        .strictObject({
          logo_url: httpUrl('branding.logo_url', 'https://shop.example/logo.png'),
        })
        .optional()
        .describe('an object with logo_url, the http(s) URL of the logo shown on the page'),
      return_url: httpUrl('return_url', 'https://shop.example/checkout/return'),
      reference: z.string().trim().min(1).max(64).optional().describe("the merchant's order id (1-64 characters), shown on the page"),
      customer_email: z.email().max(254).optional().describe('the customer e-mail address, e.g. "jane@example.com"'),
      webhook_url: httpUrl('webhook_url', 'https://shop.example/webhooks').optional(),
      expires_in: z
        .number()
        .int()
        .min(EXPIRES_IN.min)
        .max(EXPIRES_IN.max)
        .default(EXPIRES_IN.default)
        .describe(`the session lifetime in whole seconds from ${EXPIRES_IN.min} to ${EXPIRES_IN.max} (default ${EXPIRES_IN.default})`),
    })
    .superRefine((body, ctx) => {
      const seen = new Set<string>();
      for (const method of body.methods) {
        if (seen.has(method))
          ctx.addIssue({ code: 'custom', path: ['methods'], message: `methods lists "${method}" twice; send each method once` });
        seen.add(method);
      }
      const eurOnly = body.methods.find((method) => EUR_ONLY_METHODS.has(method));
      if (eurOnly && body.currency !== 'EUR') {
        const name = eurOnly === 'ideal' ? 'iDEAL' : 'SEPA Direct Debit';
        ctx.addIssue({
          code: 'custom',
          path: ['methods'],
          message: `methods includes "${eurOnly}", but ${name} is only available in EUR; set currency to "EUR" or remove "${eurOnly}"`,
        });
      }
    })
    // iDEAL and SEPA only in euros, in JSON Schema terms.
    .meta({
      if: { required: ['methods'], properties: { methods: { contains: { enum: [...EUR_ONLY_METHODS] } } } },
      then: { properties: { currency: { pattern: wordsPattern(['EUR'], { caseless: true }) } } },
    }),
);

/** A validated session request. */
export type CheckoutSessionInput = z.output<ReturnType<typeof checkoutSessionSchema>>;
