// The answer of a signature diagnosis (POST /_sandbox/signatures/diagnose, `sandbox verify --json`).
import * as z from 'zod';
import { SIGNATURE_CAUSES, type SignatureDiagnosis } from '../crypto/signature-findings.js';

/** {valid, cause, message}: whether the signature verifies, and why not in one line a person can act on. */
export const signatureDiagnosisView = z
  .object({
    valid: z.boolean().describe('true when the signature verifies (and its timestamp, in the timestamped and standard modes, is fresh)'),
    cause: z
      .enum(SIGNATURE_CAUSES)
      .describe('valid, or why not (docs/webhooks.md#why-does-my-signature-check-fail lists each cause and its fix)'),
    message: z.string().describe('one line saying what is wrong and what to change; it names whose a secret is, never a secret'),
  })
  .meta({ id: 'SignatureDiagnosis' });

/** The signature diagnosis view's TS type. */
export type SignatureDiagnosisView = z.infer<typeof signatureDiagnosisView>;

/** The answer of a diagnosis. */
export function toSignatureDiagnosisView(diagnosis: SignatureDiagnosis): SignatureDiagnosisView {
  return { valid: diagnosis.valid, cause: diagnosis.cause, message: diagnosis.message };
}
