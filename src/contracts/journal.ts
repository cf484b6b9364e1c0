// The request journal's requests in the control API: the list's query (GET /_sandbox/requests) and
// an expectation (POST /_sandbox/requests/expect, the library's expectRequested, the CLI's
// `sandbox requests expect`). http/control/journal.ts serves them.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { limit, since } from './deliveries.js';

const METHOD = /^[A-Za-z]{1,16}$/;
const STATUS = /^[1-5](?:\d\d|xx)$/;

/** An HTTP method, upper-cased. */
const method = lazySchema(() =>
  z
    .string()
    .regex(METHOD, { message: 'method must be an HTTP method such as GET or POST' })
    .transform((text) => text.toUpperCase())
    .describe('an HTTP method such as POST'),
);

/** A path, or a pattern where * matches any run of characters. */
const path = lazySchema(() =>
  z
    .string()
    .startsWith('/', { message: 'path must start with / such as /v1/payments, or be a pattern such as /v1/payments/*/capture' })
    .max(2000)
    .describe('the exact path, such as /v1/payments, or a pattern where * matches any run of characters'),
);

/** GET /_sandbox/requests query. */
export const journalQuery = lazySchema(() =>
  z
    .object({
      method: method().optional(),
      path: path().optional(),
      status: z
        .string()
        .regex(STATUS, { message: 'status must be a status such as 200, or a class such as 4xx' })
        .optional()
        .describe('a status such as 402, or a class such as 4xx'),
      merchant: z.string().optional().describe('a merchant id such as mer_sandbox'),
      payment: z
        .string()
        .optional()
        .describe(
          'a payment (S2S transID or /v1/ pay_... id): the requests that touched it, its checkout session, refunds and chargebacks',
        ),
      idempotency_key: z.string().optional().describe('the Idempotency-Key header the request carried'),
      since: since(),
      limit: limit(),
      starting_after: z.string().optional().describe('the id of the last request of the previous page (older ones follow)'),
      ending_before: z.string().optional().describe('the id of the newest request already seen (newer ones follow): how a tail polls'),
    })
    .strict(),
);

/** The journal query's TS type. */
export type JournalQuery = z.infer<ReturnType<typeof journalQuery>>;

/** POST /_sandbox/requests/expect body: what the merchant should have sent. */
export const expectationSchema = lazySchema(() =>
  z
    .object({
      method: method().optional(),
      path: path().optional(),
      body: z
        .unknown()
        .optional()
        .describe(
          'a partial body: every field given must be in the request with the same value (objects compared deeply, arrays whole); a form body is compared field by field',
        ),
      headers: z
        .record(z.string(), z.string())
        .optional()
        .describe('headers the request must carry, with these values (names in any case)'),
      merchant: z.string().optional().describe('only requests of this merchant'),
      count: z
        .number()
        .int()
        .min(0)
        .max(100000)
        .optional()
        .describe('exactly this many matching requests (default: at least one); 0 asserts that none was sent'),
      since: since(),
    })
    .strict(),
);

/** An expectation's TS type. */
export type Expectation = z.infer<ReturnType<typeof expectationSchema>>;
