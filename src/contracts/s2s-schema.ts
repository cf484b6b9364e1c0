// The one validator of S2S payment parameters (spec §2.1), shared by /api/s2s (JSON) and
// /api/s2s/encrypt (decrypted query string). Descriptions are the hints in error messages and
// the OpenAPI document.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { CURRENCY_CODES, currencyExponent, isCurrency } from '../domain/currencies.js';
import { luhnValid, normaliseCardNumber } from '../domain/card.js';
import { parseDecimalAmount } from '../domain/money.js';
import { httpUrl } from './v1-common.js';
import { DECIMAL_AMOUNT_PATTERN } from './patterns.js';
import { MOPS, type Mop } from '../domain/vocabularies.js';
import { VPA_APPROVE, VPA_DECLINE } from '../domain/outcomes.js';

/** A decimal amount above 0 with at most 8 digits and 2 decimals (bill_amt, refundAmount), after trimming. */
export const DECIMAL_AMOUNT = /^(?!0*(\.0*)?$)\d{1,8}(\.\d{1,2})?$/;

// Printable text only: control characters (NUL, escapes) in a name or address are always a mistake.
const PRINTABLE = /^[^\u0000-\u001f\u007f]*$/;
const optionalText = (hint: string, max = 255) => z.string().max(max).regex(PRINTABLE).optional().describe(hint);
const digits = (hint: string) =>
  z
    .union([z.string(), z.number().int().nonnegative().transform(String)])
    .optional()
    .describe(hint);

/** spec §2.1 fields, in the order errors are reported (built for each schema that takes them). */
export const s2sFields = () => ({
  public_key: z.string().min(1).describe('the terminal public_key, e.g. "pk_test_1001"'),
  terNO: z
    .union([
      z.number().int().positive(),
      z
        .string()
        .regex(/^\d{1,9}$/)
        .transform(Number),
    ])
    .describe('the terminal number, an integer such as 1001'),
  'integration-type': z.literal('s2s').optional().describe('"s2s", or leave the field out'),
  bill_amt: z
    // The document's pattern allows the spaces the validator trims.
    .union([
      z.string().trim().regex(DECIMAL_AMOUNT).meta({ pattern: DECIMAL_AMOUNT_PATTERN }),
      z.number().positive().max(99999999.99).transform(String),
    ])
    .describe('a decimal amount greater than 0 with at most 2 decimals and at most 99999999.99, e.g. "10.00"'),
  bill_currency: z
    .string()
    .refine(isCurrency, {
      error: (issue) => `bill_currency must be an ISO 4217 currency code in capitals, e.g. "EUR", got ${JSON.stringify(issue.input)}`,
    })
    .meta({ enum: [...CURRENCY_CODES] })
    .describe('an ISO 4217 currency code in capitals, e.g. "EUR"'),
  product_name: z.string().trim().min(1).max(255).regex(PRINTABLE).describe('the product or service name (1-255 characters)'),
  reference: z.string().trim().min(1).max(64).regex(PRINTABLE).describe("the merchant's unique order id (1-64 characters)"),
  webhook_url: httpUrl('webhook_url', 'https://shop.example/webhooks').describe(
    'an http(s) URL that receives the status webhook, e.g. "https://shop.example/webhooks"',
  ),
  return_url: httpUrl('return_url', 'https://shop.example/return').describe('an http(s) URL the customer returns to after authentication'),
  mop: z.enum(MOPS).describe(`one of ${MOPS.join(', ')}`),
  fullname: optionalText('the customer full name (printable text, up to 255 characters)'),
  bill_email: z.email().max(254).optional().describe('an e-mail address such as "jane@example.com"'),
  bill_address: optionalText('the billing street address'),
  bill_city: optionalText('the billing city'),
  bill_state: optionalText('the billing state or region'),
  bill_zip: optionalText('the billing postcode', 32),
  bill_country: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .optional()
    .describe('a two-letter country code in capitals, e.g. "NL"'),
  bill_phone: z
    .string()
    .regex(/^\+?[0-9 ()-]{4,32}$/)
    .optional()
    .describe('a phone number, digits with an optional leading +'),
  source: optionalText('a free-text source label'),
  source_url: httpUrl('source_url', 'https://shop.example/cart')
    .optional()
    .describe('the http(s) URL of the page the payment started from'),
  ccno: digits('the card number, 13-19 digits'),
  ccvv: digits('the card CVV, 3 or 4 digits'),
  month: digits('the expiry month, two digits 01-12'),
  year: digits('the two-digit expiry year, e.g. "30"'),
  vpa: z
    .string()
    .regex(/^[A-Za-z0-9._-]{2,256}@[A-Za-z0-9.-]{1,64}$/)
    .optional()
    .describe(`the customer UPI VPA: a handle, "@" and a provider, e.g. "${VPA_APPROVE}@upi" (UPICOLLECT only)`),
  bank: optionalText('the bank code for NB, or the wallet for WALLET (optional: the page asks)', 64),
});

type Ctx = z.core.$RefinementCtx<{
  mop: Mop;
  ccno?: string;
  ccvv?: string;
  month?: string;
  year?: string;
  vpa?: string;
  bill_amt: string;
  bill_currency: string;
}>;

/** Mode-dependent rules: card fields for CC/DC, the VPA for UPICOLLECT, decimals per currency. */
function modeRules(body: Ctx['value'], ctx: Ctx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (parseDecimalAmount(body.bill_amt, body.bill_currency) === undefined) {
    // A JSON number such as 10.505 passes the type check and lands here too, so say which limit it broke.
    const fix = currencyExponent(body.bill_currency) === 0 ? 'send a whole amount such as "1000"' : 'send at most 2 decimals, e.g. "10.50"';
    issue('bill_amt', `bill_amt ${body.bill_amt} has more decimals than ${body.bill_currency} allows; ${fix}`);
    return;
  }
  if (body.mop === 'CC' || body.mop === 'DC') {
    const { ccno, ccvv, month, year } = body;
    if (!ccno || !ccvv || !month || !year) {
      const missing = !ccno ? 'ccno' : !ccvv ? 'ccvv' : !month ? 'month' : 'year';
      const hint = {
        ccno: 'the card number, 13-19 digits',
        ccvv: 'the CVV, 3 or 4 digits',
        month: 'the expiry month, two digits 01-12',
        year: 'the two-digit expiry year',
      }[missing];
      issue(missing, `${missing} is required when mop is ${body.mop}: send ${hint}`);
      return;
    }
    // The first problem only, in the order a person fixes them.
    const number = normaliseCardNumber(ccno);
    if (!/^\d{13,19}$/.test(number)) issue('ccno', 'ccno must be 13-19 digits (spaces allowed); use a test card such as 4242424242424242');
    else if (!luhnValid(number)) issue('ccno', 'ccno fails the Luhn check: a digit is wrong; use a test card such as 4242424242424242');
    else if (!/^\d{3,4}$/.test(ccvv)) issue('ccvv', 'ccvv must be 3 or 4 digits');
    else if (!/^(0[1-9]|1[0-2])$/.test(month)) issue('month', `month must be two digits from 01 to 12, got "${body.month}"`);
    else if (!/^\d{2}$/.test(year)) issue('year', `year must be the two-digit expiry year such as "30", got "${body.year}"`);
  }
  if (body.mop === 'UPICOLLECT' && !body.vpa)
    issue(
      'vpa',
      `vpa is required when mop is UPICOLLECT: send the customer VPA, e.g. "${VPA_APPROVE}@upi" (approves), "${VPA_DECLINE}@upi" (declines) or any other to wait for approval`,
    );
}

/**
 * The mode rules in JSON Schema terms, for the document: the card fields CC and DC require (as
 * text, or as numbers of the right size), the VPA UPICOLLECT requires. The Luhn check and the
 * decimals each currency allows stay the validator's.
 */
const MODE_RULES = {
  allOf: [
    {
      if: { required: ['mop'], properties: { mop: { enum: ['CC', 'DC'] } } },
      then: {
        required: ['ccno', 'ccvv', 'month', 'year'],
        properties: {
          ccno: { pattern: '^[\\s-]*(?:\\d[\\s-]*){13,19}$', minimum: 1e12, maximum: 1e19 },
          ccvv: { pattern: '^\\d{3,4}$', minimum: 100, maximum: 9999 },
          month: { pattern: '^(?:0[1-9]|1[0-2])$', minimum: 10, maximum: 12 },
          year: { pattern: '^\\d{2}$', minimum: 10, maximum: 99 },
        },
      },
    },
    {
      if: { required: ['mop'], properties: { mop: { const: 'UPICOLLECT' } } },
      then: { required: ['vpa'], properties: { vpa: { type: 'string' } } },
    },
  ],
};

/** POST /api/s2s body. Unknown fields are ignored, as the gateway does. */
export const s2sPaymentSchema = lazySchema(() =>
  z
    .object(s2sFields())
    .superRefine(modeRules as never)
    .meta(MODE_RULES),
);

/** Decrypted /api/s2s/encrypt parameters: the same, plus encryption_method (the 12th mandatory field). */
export const s2sEncryptedSchema = lazySchema(() =>
  z
    .object({
      ...s2sFields(),
      encryption_method: z.enum(['aes256', 'none']).describe('"aes256" for encrypted webhooks or "none" for plain ones'),
    })
    .superRefine(modeRules as never)
    .meta(MODE_RULES),
);

/** A validated S2S payment request. */
export type S2SPaymentInput = z.output<ReturnType<typeof s2sPaymentSchema>> & { encryption_method?: 'aes256' | 'none' };

/** POST /api/s2s/encrypt form: the endpoint reads this one field itself; what is inside is validated by s2sEncryptedSchema. */
export const s2sEncryptedForm = lazySchema(() =>
  z.object({
    encrypted_data: z
      .string()
      .min(1)
      .describe('base64(base64(AES-256-CBC of the payment query string)) followed by the terminal public_key (docs/encryption.md)'),
  }),
);
