// "Why does my signature check fail?", answered from what the handler received (headers, raw body,
// the secret it used) and what the sandbox knows: the exact bytes and headers of the attempt the
// headers name, the secrets that signed it and every other secret it holds. The checks run from
// the most certain to the least: the body as sent, the signing headers as sent, the secret, then the
// timestamp. A request the sandbox did not send (one a test built) is diagnosed from its own
// signature: prefix, encoding, whitespace around the secret, or a known secret that made it.
import { bodyDifference } from '../domain/body-difference.js';
import { secretFinding, secretName, type KnownSecret } from './secret-diagnosis.js';
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
  type SentAttempt,
  type SignatureDiagnosis,
} from './findings.js';
import {
  entryDigest,
  matchKey,
  sameKey,
  signatureEntries,
  signerKey,
  signingHeaders,
  spellingOf,
  verifierKey,
  type HeaderMap,
} from './match.js';
import { diagnoseUnsent } from './unsent-diagnosis.js';
import { WorkBudget, WorkBudgetSpent } from './work-budget.js';

/** How the received signing headers differ from the ones the attempt was sent with, if they do. */
function headerChange(
  got: HeaderMap,
  sent: SentAttempt,
  mode: SignatureMode,
  prefix: string,
  what: string,
  budget: WorkBudget,
): SignatureDiagnosis | undefined {
  const names = signingHeaders(mode, prefix);
  for (const name of [names.signature, names.id, names.timestamp]) {
    if (name === undefined || got[name] === sent.headers[name]) continue;
    const header = shown(name, prefix);
    const was = sent.headers[name];
    if (got[name] === undefined || was === undefined)
      return invalid('headers_changed', `the headers lack ${header}, which ${what} carried: pass every header your handler received`);
    if (name !== names.signature)
      return invalid(
        'headers_changed',
        `${header} is ${got[name]}, but ${what} was signed with ${was}: take every header from the same request`,
      );
    const sentEntries = signatureEntries(was, mode);
    const gotEntries = signatureEntries(got[name], mode);
    if (gotEntries.length > 0 && gotEntries.every((entry) => sentEntries.includes(entry))) continue;
    for (const entry of gotEntries) {
      for (const digest of sentEntries.map((e) => entryDigest(e, mode))) {
        const spelling = digest && spellingOf(entry, digest, mode, budget);
        if (spelling && spelling.form !== 'exact') return misspelt(spelling, header, mode);
      }
    }
    return invalid(
      'headers_changed',
      `${header} is not the signature the sandbox sent in ${what}: it was changed on the way, or the request was signed again by someone else (sandbox listen --forward-to signs with its --secret)`,
    );
  }
  return undefined;
}

/** The secret and mode that made the attempt's recorded signature, among the delivery's signers. */
function signerOf(sent: SentAttempt, prefix: string, budget: WorkBudget): { signer: KnownSecret; mode: SignatureMode } | undefined {
  const modes: SignatureMode[] =
    sent.headers['webhook-signature'] !== undefined
      ? ['standard']
      : sent.mode === 'timestamped'
        ? ['timestamped', 'plain']
        : ['plain', 'timestamped'];
  for (const mode of modes) {
    for (const signer of sent.signers) {
      const match = matchKey(sent.headers, sent.body, signerKey(signer.value, mode), mode, prefix, budget);
      if (match?.spelling.form === 'exact' && match.header === signingHeaders(mode, prefix).signature) return { signer, mode };
    }
  }
  return undefined;
}

function diagnoseSent(r: ReceivedRequest, c: DiagnosisContext & { budget: WorkBudget }, sent: SentAttempt): SignatureDiagnosis {
  const found = signerOf(sent, c.prefix, c.budget);
  const mode = found?.mode ?? sent.mode;
  const names = signingHeaders(mode, c.prefix);
  const what = `attempt ${sent.attempt} of delivery ${sent.deliveryId}`;
  const secret = r.secret;
  const mine = secret === undefined ? undefined : matchKey(r.headers, r.body, verifierKey(secret, mode), mode, c.prefix, c.budget);
  if (secret !== undefined && mine?.spelling.form === 'exact' && mine.header === names.signature) {
    const whose = found && sameSecret(secret, found.signer, mode) ? ` (${secretName(found.signer)})` : '';
    return (
      staleness(r.headers, mode, c, sent) ?? {
        valid: true,
        cause: 'valid',
        message: `signature valid: ${recipe(mode, c.prefix)} matches under the secret you sent${whose}; if your check fails all the same, it computes something else`,
      }
    );
  }
  if (sent.fault?.includes('bad-signature') && r.headers[names.signature] === sent.headers[names.signature])
    return invalid(
      'injected_fault',
      `the sandbox signed ${what} with a wrong secret on purpose (a bad-signature fault rule): your handler is right to refuse it; \`sandbox faults clear\` removes the rule`,
    );
  const body = bodyDifference(sent.body, r.body);
  if (body) return invalid(body.change, `the body ${body.how}; ${RAW_BODY}`);
  const header = headerChange(r.headers, sent, mode, c.prefix, what, c.budget);
  if (header) return header;
  if (!found)
    return invalid(
      'unknown',
      `the body and headers are those of ${what}, but none of the secrets that sign it now made that signature (its endpoint's secret was rotated again since): sandbox webhooks replay ${sent.deliveryId} sends it again, freshly signed`,
    );
  if (secret !== undefined) {
    const previousHeader = mine?.spelling.form === 'exact' && mine.header === names.previous;
    const context = {
      mode,
      signers: sent.signers,
      known: c.secrets,
      now: c.time.sandbox,
      what,
      deliveryId: sent.deliveryId,
      prefix: c.prefix,
    };
    const finding = secretFinding(secret, found.signer, context, previousHeader);
    return invalid(finding.cause, finding.message);
  }
  return (
    staleness(r.headers, mode, c, sent) ?? {
      valid: true,
      cause: 'valid',
      message: `signature valid: the body and headers are exactly what the sandbox sent in ${what}, signed with ${secretName(found.signer)}; if your check fails, send the secret it uses as well`,
    }
  );
}

function sameSecret(given: string, signer: KnownSecret, mode: SignatureMode): boolean {
  return sameKey(verifierKey(given, mode), signerKey(signer.value, mode));
}

/** Why a received webhook's signature does (not) verify; see SIGNATURE_CAUSES. */
export function diagnoseSignature(received: ReceivedRequest, context: DiagnosisContext): SignatureDiagnosis {
  const { headers } = received;
  if (headers['webhook-signature'] === undefined && headers[signingHeaders('plain', context.prefix).signature] === undefined) {
    const other = Object.keys(headers).find((name) => /^x-[a-z0-9]+-signature$/.test(name));
    const hint = other ? ` (${other} is there: was it sent by a sandbox with another --header-prefix?)` : '';
    return invalid(
      'missing_signature',
      `the headers carry no signature, neither X-${context.prefix}-Signature nor webhook-signature${hint}: pass every header your handler received, as received`,
    );
  }
  const c = { ...context, budget: context.budget ?? new WorkBudget() };
  try {
    return c.sent ? diagnoseSent(received, c, c.sent) : diagnoseUnsent(received, c);
  } catch (err) {
    if (!(err instanceof WorkBudgetSpent)) throw err;
    return invalid(
      'unknown',
      `the sandbox stopped looking: comparing this ${Math.ceil(received.body.length / 1024)} KB body and its signature header with the ${context.secrets.length} secrets it holds is more work than one diagnosis may do; pass every header your handler received (X-${context.prefix}-Delivery-Id names the delivery, so the sandbox compares with what it sent) and the secret your handler uses`,
    );
  }
}
