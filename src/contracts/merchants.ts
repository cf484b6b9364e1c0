// The control API's merchant requests: POST /_sandbox/merchants (every field optional) and the
// query of GET /_sandbox/merchants. services/merchants.ts makes and lists them.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { currencyCode, queryInteger } from './v1-common.js';

/** The highest terNO the create takes. */
export const LAST_TER_NO = 999_999_999;
/** Merchants on a page of GET /_sandbox/merchants unless `limit` says otherwise, as on the other control lists. */
export const MERCHANT_PAGE = 50;

// Entry fields sit inside an array, where error messages cannot reach a field's description, so
// each check carries its own hint (as in scenarios.ts).
const hint = (text: string) => ({ error: text });
const terNo = hint('terNO must be a whole number from 1 to 999999999 that no other terminal has');
const publicKey = hint(
  'public_key must be 4-200 letters, digits or _ such as "pk_test_3003", unused by other terminals (and neither ending with nor the end of another terminal\'s)',
);
const privateKey = hint('private_key must be 4-200 letters, digits or _ such as "pv_test_3003"');

/** POST /_sandbox/merchants body: every field optional. */
export const createMerchantSchema = lazySchema(() =>
  z
    .object({
      name: z
        .string()
        .trim()
        .min(1)
        .max(200)
        .optional()
        .describe('the merchant name shown in lists and the dashboard (default "Merchant <terNO>")'),
      currency: currencyCode()
        .optional()
        .describe('the currency the sandbox makes objects in for this merchant, e.g. by event triggers (default "EUR")'),
      terminals: z
        .array(
          z
            .object({
              terNO: z.number(terNo).int(terNo).min(1, terNo).max(LAST_TER_NO, terNo),
              public_key: z.string(publicKey).regex(/^[A-Za-z0-9_]{4,200}$/, publicKey),
              private_key: z.string(privateKey).regex(/^[A-Za-z0-9_]{4,200}$/, privateKey),
            })
            .strict(),
        )
        .min(1)
        .max(10)
        .optional()
        .describe(
          'the terminals, shaped like those of a fixtures file: [{"terNO": 3003, "public_key": "pk_test_3003", "private_key": "pv_test_3003"}] (default: one new terminal)',
        ),
    })
    .strict(),
);

/** A parsed POST /_sandbox/merchants body. */
export type CreateMerchantInput = z.output<ReturnType<typeof createMerchantSchema>>;

/** GET /_sandbox/merchants query: the list parameters of the other control lists. */
export const merchantListQuery = lazySchema(() =>
  z
    .object({
      limit: queryInteger(1, 1000)
        .optional()
        .describe(`how many merchants to return, a whole number from 1 to 1000 (default ${MERCHANT_PAGE})`),
      starting_after: z
        .string()
        .min(1)
        .max(100)
        .optional()
        .describe('the id of the last merchant of the previous page; the list continues after it'),
    })
    .strict(),
);
