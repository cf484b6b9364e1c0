// A signature check diagnosed without a delivery to compare with: a request a test built, or one
// whose headers name a delivery this sandbox does not hold. Keys are tried against the signature
// the request carries: the caller's secret, then it trimmed and in its other forms, then every
// secret the sandbox knows, then the same over the body as it was likely signed (compact JSON).
import { bodyDifference } from '../domain/body-difference.js';
import { secretName, TRIM, whitespaceOf } from './secret-diagnosis.js';
import { standardSecret } from './signing.js';
import type { SignatureMode } from '../domain/vocabularies.js';
import {
  invalid,
  misspelt,
  RAW_BODY,
  recipe,
  shown,
  staleness,
  type DiagnosisContext,
  type ReceivedRequest,
  type SignatureDiagnosis,
} from './findings.js';
import { matchKey, signerKey, verifierKey, type KeyMatch } from './match.js';
import type { WorkBudget } from './work-budget.js';

/** Variants of a body a sender may have signed before it was changed: compact JSON, no whitespace at the end. */
function bodyVariants(body: string, budget: WorkBudget): string[] {
  // Parsing and writing it again is about as much work as hashing it twice.
  budget.spend(2 * body.length);
  const variants = new Set<string>([body.trimEnd()]);
  try {
    variants.add(JSON.stringify(JSON.parse(body)));
  } catch {
    // not JSON
  }
  variants.delete(body);
  return [...variants];
}

/** Why a request the sandbox did not send (as far as it knows) does (not) verify. */
export function diagnoseUnsent(r: ReceivedRequest, c: DiagnosisContext & { budget: WorkBudget }): SignatureDiagnosis {
  const modes: SignatureMode[] = r.headers['webhook-signature'] !== undefined ? ['standard'] : ['plain', 'timestamped'];
  const named = !c.named
    ? 'the headers name no delivery of this sandbox'
    : c.named.known
      ? `the headers name ${c.named.what}, which the sandbox has not sent yet`
      : `the headers name ${c.named.what}, which this sandbox does not know (another sandbox's, or from before a reset)`;
  const header = (m: KeyMatch) => shown(m.header, c.prefix);
  const secret = r.secret;
  for (const mode of modes) {
    const settle = (m: KeyMatch, ok: () => SignatureDiagnosis) =>
      m.spelling.form === 'exact' ? (staleness(r.headers, mode, c) ?? ok()) : misspelt(m.spelling, header(m), mode);
    const at = (key: Buffer | undefined, body = r.body) => matchKey(r.headers, body, key, mode, c.prefix, c.budget);
    if (secret !== undefined) {
      const own = at(verifierKey(secret, mode));
      if (own)
        return settle(own, () => ({
          valid: true,
          cause: 'valid',
          message: `signature valid: ${recipe(mode, c.prefix)} matches under the secret you sent; ${named}`,
        }));
      if (secret.trim() !== secret && at(verifierKey(secret.trim(), mode)))
        return invalid('secret_whitespace', `the secret you sent ${whitespaceOf(secret)}; trimmed, the signature matches: ${TRIM}`);
      const forms = [standardSecret(secret), secret.replace(/^whsec_/, '')].map((form) => verifierKey(form, mode));
      if ([signerKey(secret, mode), ...forms].some((key) => at(key)?.spelling.form === 'exact'))
        return invalid(
          'other_secret',
          `the signature was made with another form of the secret you sent (${mode === 'standard' ? 'its text as the key, where a Standard Webhooks library decodes the base64 after whsec_' : 'its Standard Webhooks form, or without whsec_'}); ${named}`,
        );
    }
    for (const known of c.secrets) {
      const match = at(signerKey(known.value, mode));
      if (!match) continue;
      if (secret !== undefined && match.spelling.form === 'exact')
        return invalid('other_secret', `the signature was made with ${secretName(known)}, not the secret you sent; ${named}`);
      return settle(match, () => ({
        valid: true,
        cause: 'valid',
        message: `signature valid: made over this body with ${secretName(known)}; ${named}`,
      }));
    }
    const keys = [secret === undefined ? undefined : verifierKey(secret, mode), ...c.secrets.map((k) => signerKey(k.value, mode))];
    for (const variant of bodyVariants(r.body, c.budget)) {
      const change = bodyDifference(variant, r.body);
      if (change && keys.some((key) => at(key, variant)?.spelling.form === 'exact')) {
        return invalid(change.change, `the body ${change.how}, and the signature matches it as it was before; ${RAW_BODY}`);
      }
    }
  }
  return invalid(
    'unknown',
    `${named}, and the signature matches this body under ${secret === undefined ? 'no secret' : 'neither the secret you sent nor any secret'} this sandbox knows: pass the raw body and every header exactly as received${secret === undefined ? ', and the secret your handler uses' : ''}`,
  );
}
