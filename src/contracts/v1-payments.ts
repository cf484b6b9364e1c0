// POST /v1/payments (spec §4.5 plus card/token, reference, description, metadata, capture), the
// capture and cancel bodies and the list query (the payment object it answers with is src/views/payment.ts).
// Descriptions are the hints in error messages and the OpenAPI text.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { PAYMENT_STATES } from '../domain/payment-state.js';
import { PAYMENT_INITIATORS, SETUP_FUTURE_USAGES } from '../domain/vocabularies.js';
import { ROUTING_ACQUIRERS } from '../domain/routing.js';
import { cardSchema } from './v1-tokens.js';
import { currencyCode, httpUrl, listQueryFields, minorAmount, unixSeconds } from './v1-common.js';
import { shapeOf } from './json-shape.js';

/** metadata limits (the familiar ones): 50 keys of at most 40 characters, values of at most 500. */
export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500 } as const;

/**
 * A key named __proto__ is refused before the record is read: zod (like any JavaScript object)
 * cannot keep it and would drop it without a word, so the merchant would lose it unseen.
 */
function refuseProtoKey(input: unknown, ctx: z.core.$RefinementCtx): unknown {
  if (typeof input === 'object' && input !== null && Object.hasOwn(input, '__proto__'))
    ctx.addIssue({
      code: 'custom',
      path: ['__proto__'],
      message:
        'metadata cannot keep a key named "__proto__" (JavaScript objects take it for their prototype, so it would be lost): give it another name',
    });
  return input;
}

const metadataSchema = lazySchema(() =>
  z
    .preprocess(refuseProtoKey, z.record(z.string(), z.unknown()))
    .superRefine((map, ctx) => {
      const keys = Object.keys(map);
      if (keys.length > METADATA_LIMITS.keys) {
        ctx.addIssue({ code: 'custom', message: `metadata has ${keys.length} keys; send at most ${METADATA_LIMITS.keys}` });
        return;
      }
      for (const key of keys) {
        const value = map[key];
        if (key.length === 0 || key.length > METADATA_LIMITS.keyLength) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `metadata keys must be 1-${METADATA_LIMITS.keyLength} characters; shorten "${key.slice(0, 50)}"`,
          });
          return;
        }
        if (typeof value !== 'string') {
          // The value's shape, not the value: it may be nested too deep for JSON.stringify, or hold a card.
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `metadata.${key} must be a string (metadata is a flat map of strings), got ${shapeOf(value)}; send it as text`,
          });
          return;
        }
        if (value.length > METADATA_LIMITS.valueLength) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `metadata.${key} is ${value.length} characters; values may be at most ${METADATA_LIMITS.valueLength}`,
          });
          return;
        }
      }
    })
    .transform((map) => map as Record<string, string>)
    // The rule above in JSON Schema terms, so the document types metadata as strictly as the check.
    .meta({
      maxProperties: METADATA_LIMITS.keys,
      propertyNames: { minLength: 1, maxLength: METADATA_LIMITS.keyLength },
      additionalProperties: { type: 'string', maxLength: METADATA_LIMITS.valueLength },
    })
    .describe(`a flat object of string values, e.g. {"order_id": "6735"} (at most ${METADATA_LIMITS.keys} keys)`),
);

/** POST /v1/payments. Unknown fields are refused so a typo does not pass silently. */
export const createPaymentSchema = lazySchema(() =>
  z
    .strictObject({
      amount: minorAmount('the amount to charge'),
      currency: currencyCode(),
      method: z
        .string()
        .default('card')
        .meta({ enum: ['card'] })
        .describe('"card" (the default); other methods are offered by hosted checkout'),
      routing: z
        .enum(Object.keys(ROUTING_ACQUIRERS) as ['smart', 'direct'])
        .default('smart')
        .describe('"smart" (the default; acquirer best_available) or "direct" (acquirer sandbox_acquirer)'),
      customer: z
        .strictObject({
          country: z
            .string()
            .regex(/^[A-Z]{2}$/)
            .optional()
            .describe('a two-letter country code in capitals, e.g. "NL"'),
          email: z.email().max(254).optional().describe('an e-mail address such as "jane@example.com"'),
          name: z.string().trim().min(1).max(255).optional().describe('the customer name'),
        })
        .optional()
        .describe('an object with country (two-letter code) and optionally email and name'),
      card: cardSchema().optional(),
      token: z
        .string()
        .regex(/^tok_[A-Za-z0-9_]{1,64}$/)
        .optional()
        .describe('a token id such as "tok_visa" or one returned by POST /v1/tokens'),
      reference: z.string().trim().min(1).max(64).optional().describe("the merchant's order id (1-64 characters)"),
      description: z.string().max(1000).optional().describe('a description of at most 1000 characters'),
      metadata: metadataSchema().optional(),
      capture: z.boolean().default(true).describe('true (the default) to capture at once after authorization, false to capture later'),
      return_url: httpUrl('return_url', 'https://shop.example/return').optional(),
      webhook_url: httpUrl('webhook_url', 'https://shop.example/webhooks').optional(),
      initiator: z
        .enum(PAYMENT_INITIATORS)
        .default('customer')
        .describe(
          '"customer" (the default: the customer is present) or "merchant" (a charge on a stored token with nobody present, such as a renewal: never challenged)',
        ),
      setup_future_usage: z
        .enum(SETUP_FUTURE_USAGES)
        .optional()
        .describe('"off_session" stores the card or token for later merchant-initiated charges once this payment is authorized'),
    })
    .superRefine((body, ctx) => {
      if (body.initiator === 'merchant') {
        if (body.card)
          ctx.addIssue({
            code: 'custom',
            path: ['initiator'],
            message:
              'initiator "merchant" charges a stored card: send token (one a customer-initiated payment stored with setup_future_usage "off_session"), not card',
          });
        else if (!body.token)
          ctx.addIssue({
            code: 'custom',
            path: ['initiator'],
            message:
              'initiator "merchant" charges a stored card: send token, the tok_... a customer-initiated payment stored with setup_future_usage "off_session"',
          });
        if (body.setup_future_usage)
          ctx.addIssue({
            code: 'custom',
            path: ['setup_future_usage'],
            message: 'only a customer-initiated payment stores a card for later: leave setup_future_usage out when initiator is "merchant"',
          });
      }
      if (body.method !== 'card') {
        ctx.addIssue({
          code: 'custom',
          path: ['method'],
          message: `method "${body.method.slice(0, 40)}" is not taken by /v1/payments, which takes only "card"; for iDEAL or SEPA create a hosted checkout session (POST /v1/checkout/sessions with methods ["ideal"] or ["sepa"])`,
        });
      }
      if (body.card && body.token) ctx.addIssue({ code: 'custom', path: ['token'], message: 'send either card or token, not both' });
    })
    .meta({
      not: { required: ['card', 'token'], properties: { card: { type: 'object' }, token: { type: 'string' } } },
      description: 'a payment; card and token exclude each other',
    }),
);

/** A validated payment request. */
export type CreatePaymentInput = z.output<ReturnType<typeof createPaymentSchema>>;

/** POST /v1/payments/{id}/capture; the body may be empty. */
export const capturePaymentSchema = lazySchema(() =>
  z.strictObject({
    amount: minorAmount('the amount to capture, at most the authorized amount (default: all of it; the rest is released)').optional(),
  }),
);

/** POST /v1/payments/{id}/cancel; the body may be empty. */
export const cancelPaymentSchema = lazySchema(() => z.strictObject({}));

/** GET /v1/payments query. */
export const listPaymentsQuery = lazySchema(() =>
  z.strictObject({
    ...listQueryFields(),
    status: z
      .enum(PAYMENT_STATES)
      .optional()
      .describe(`only payments with this status: ${PAYMENT_STATES.join(', ')}`),
    'created[gte]': unixSeconds('only payments created at or after this time'),
    'created[lte]': unixSeconds('only payments created at or before this time'),
  }),
);
