// The body of POST /_sandbox/signatures/diagnose (and of the library's diagnoseSignature): what a
// webhook handler received and the secret it verified with. Header names are taken in any case,
// so a name given twice in two cases is refused: the diagnosis would not know which one was sent.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

const headerValue = lazySchema(() =>
  z.union([z.string(), z.array(z.string())], {
    error: 'a header value: text, or a list of texts for a header received more than once',
  }),
);

/** The request of a signature diagnosis. Unknown fields are refused so a typo does not pass silently. */
export const diagnoseSignatureSchema = lazySchema(() =>
  z.strictObject({
    headers: z
      .record(z.string(), headerValue())
      .superRefine((headers, ctx) => {
        const seen = new Map<string, string>();
        for (const name of Object.keys(headers)) {
          const first = seen.get(name.toLowerCase());
          if (first !== undefined)
            ctx.addIssue({
              code: 'custom',
              message: `headers names ${JSON.stringify(first)} and ${JSON.stringify(name)}, the same header (names ignore case); send it once`,
            });
          seen.set(name.toLowerCase(), name);
        }
      })
      .describe(
        'the headers your handler received, as an object of name: value (names in any case), e.g. {"X-Sandbox-Signature": "sha256=...", "X-Sandbox-Delivery-Id": "whd_..."}',
      ),
    body: z
      .string()
      .max(1_000_000)
      .describe(
        'the raw body your handler received, as text, byte for byte (an empty string for an empty body); at most 1 000 000 characters, as POST /_sandbox/signatures/sign signs',
      ),
    secret: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .describe('the secret your handler verifies with, exactly as it reads it (a trailing newline included)'),
  }),
);

/** A signature diagnosis request, as validated. */
export type DiagnoseSignatureInput = z.output<ReturnType<typeof diagnoseSignatureSchema>>;
