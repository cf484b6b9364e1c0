// The body of POST /_sandbox/signatures/sign (`sandbox send --merchant/--endpoint`): a body to sign
// as the delivery worker signs a webhook of a merchant or of one of its registered endpoints, with
// that one's secret, mode and the sandbox's header prefix. The secret never leaves the sandbox.
// What goes into a header (event type and id, content type) is one line of printable ASCII.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { SIGNATURE_MODES } from '../domain/vocabularies.js';
import { HEADER_VALUE_PATTERN } from './patterns.js';

const id = lazySchema(() => z.string().min(1).max(200));

/** A field that goes into a header of the answer: printable ASCII on one line, as `sandbox send` takes it (a CR or LF would start another header). */
function headerField(field: string) {
  return id()
    .refine((value) => new RegExp(HEADER_VALUE_PATTERN).test(value), {
      error: (issue) => `${field} goes into a header: give printable ASCII on one line (no CR or LF), got ${JSON.stringify(issue.input)}`,
    })
    .meta({ pattern: HEADER_VALUE_PATTERN });
}

/** The request of a signing. Unknown fields are refused so a typo does not pass silently. */
export const signWebhookSchema = lazySchema(() =>
  z
    .strictObject({
      merchant_id: id().optional().describe("mer_...: sign with this merchant's webhook secret, in the sandbox's --signature mode"),
      endpoint_id: id()
        .optional()
        .describe("we_...: sign with this registered endpoint's secret (and the one its rotation replaced, while it lasts), in its mode"),
      event_type: headerField('event_type').describe('the X-Sandbox-Event-Type header, such as payment.captured'),
      event_id: headerField('event_id')
        .optional()
        .describe('the event id the headers carry (webhook-id in standard mode); a new evt_... when left out'),
      content_type: headerField('content_type').describe('the Content-Type header, such as application/json'),
      body: z.string().max(1_000_000).describe('the raw body to sign, as text, byte for byte'),
      signature: z
        .enum(SIGNATURE_MODES)
        .optional()
        .describe('plain, timestamped or standard instead of the mode the merchant or endpoint is signed in'),
    })
    .superRefine((input, ctx) => {
      if (input.merchant_id !== undefined && input.endpoint_id !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['merchant_id'],
          message:
            'merchant_id and endpoint_id do not go together: give one of them, whose secret signs the body (an endpoint signs with its own)',
        });
      else if (input.merchant_id === undefined && input.endpoint_id === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['merchant_id'],
          message: 'give merchant_id or endpoint_id, one of them: whose secret signs the body',
        });
    }),
);

/** A signing request, as validated. */
export type SignWebhookInput = z.output<ReturnType<typeof signWebhookSchema>>;
