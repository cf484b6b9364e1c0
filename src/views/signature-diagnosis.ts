// The answer of a signature diagnosis (POST /_sandbox/signatures/diagnose, `sandbox verify --json`),
// and of a signing (POST /_sandbox/signatures/sign, `sandbox send`).
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { SIGNATURE_CAUSES, type SignatureDiagnosis } from '../signatures/findings.js';

/** {valid, cause, message}: whether the signature verifies, and why not in one line a person can act on. */
export const signatureDiagnosisView = lazySchema(() =>
  z
    .object({
      valid: z.boolean().describe('true when the signature verifies (and its timestamp, in the timestamped and standard modes, is fresh)'),
      cause: z
        .enum(SIGNATURE_CAUSES)
        .describe('valid, or why not (docs/webhooks.md#why-does-my-signature-check-fail lists each cause and its fix)'),
      message: z.string().describe('one line saying what is wrong and what to change; it names whose a secret is, never a secret'),
    })
    .meta({ id: 'SignatureDiagnosis' }),
);

/** The signature diagnosis view's TS type. */
export type SignatureDiagnosisView = z.infer<ReturnType<typeof signatureDiagnosisView>>;

/** The answer of a diagnosis. */
export function toSignatureDiagnosisView(diagnosis: SignatureDiagnosis): SignatureDiagnosisView {
  return { valid: diagnosis.valid, cause: diagnosis.cause, message: diagnosis.message };
}

/** {headers}: the signed headers of POST /_sandbox/signatures/sign, as the delivery worker sends them. */
export const signedHeadersView = lazySchema(() =>
  z
    .object({
      headers: z
        .record(z.string(), z.string())
        .describe('name (lower case): value of every header the delivery worker sends with the body, signature included'),
    })
    .meta({ id: 'SignedHeaders' }),
);

/** The signed headers view's TS type. */
export type SignedHeadersView = z.infer<ReturnType<typeof signedHeadersView>>;
