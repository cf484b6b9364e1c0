// Pieces the /v1/ payment, refund and token schemas share: amounts in minor units, http(s) URLs,
// and the list parameters (limit, starting_after). Descriptions are error hints and OpenAPI text.
import * as z from 'zod';
import { CURRENCY_CODES, isCurrency } from '../domain/currencies.js';
import { parseHttpUrl } from '../domain/http-url.js';
import { HTTP_URL_PATTERN, wordsPattern } from './patterns.js';

/** Largest /v1/ amount in minor units (docs/decisions.md: integer minor units > 0). */
export const MAX_V1_AMOUNT = 99_999_999_999;

/** An integer amount of minor units, 1 to MAX_V1_AMOUNT. */
export function minorAmount(hint: string) {
  return z
    .number()
    .int()
    .positive()
    .max(MAX_V1_AMOUNT)
    .describe(`${hint}: a whole number of minor units from 1 to ${MAX_V1_AMOUNT}, e.g. 1050 for EUR 10.50`);
}

/** An ISO 4217 currency code; lower case is accepted and answered in capitals. */
export function currencyCode() {
  return z
    .string()
    .transform((code) => code.toUpperCase())
    .refine(isCurrency, { message: 'currency must be an ISO 4217 code such as "EUR" or "usd"' })
    .meta({ pattern: wordsPattern(CURRENCY_CODES, { caseless: true }) })
    .describe('an ISO 4217 currency code, e.g. "EUR" (lower case is accepted)');
}

/** An absolute http(s) URL the WHATWG parser accepts (every URL field of every request); other schemes and relative paths are refused. */
export function httpUrl(field: string, example: string) {
  return z
    .string()
    .max(2048)
    .refine((text) => parseHttpUrl(text) !== undefined, {
      message: `${field} must be an absolute http(s) URL such as "${example}" (at most 2048 characters, a valid host, a port up to 65535)`,
    })
    .meta({ format: 'uri', pattern: HTTP_URL_PATTERN })
    .describe(`an absolute http(s) URL, e.g. "${example}"`);
}

/**
 * A whole-number query parameter from `min` to `max`. The query string's digits become a number
 * before the check, so the document's input schema says integer (not string) and a typed client
 * sends a number; anything but plain digits stays text and fails the integer check.
 */
export function queryInteger(min: number, max: number) {
  return z.preprocess(
    (value) => (typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value),
    z.number().int().min(min).max(max),
  );
}

/** Query parameters every /v1/ list takes. */
export const listQueryFields = () => ({
  limit: queryInteger(1, 100).optional().describe('how many objects to return, a whole number from 1 to 100 (default 10)'),
  starting_after: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('the id of the last object of the previous page; the list continues after it'),
});

/** A unix-seconds query bound, e.g. created[gte]=1767225600. */
export function unixSeconds(hint: string) {
  return queryInteger(0, 99_999_999_999).optional().describe(`${hint}, in unix seconds such as 1767225600`);
}
