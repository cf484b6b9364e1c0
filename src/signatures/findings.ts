// The vocabulary of a signature diagnosis (its causes and answer), what it is given, and the
// findings every path of it shares: a timestamp a handler refuses, a digest spelt otherwise than
// the sandbox spells it, and how a correct check computes the signature.
import { formatDuration } from '../domain/duration.js';
import type { KnownSecret } from './secret-diagnosis.js';
import type { SignatureMode } from '../domain/vocabularies.js';
import { signingHeaders, type HeaderMap, type Spelling } from './match.js';
import type { WorkBudget } from './work-budget.js';

/** Every cause a diagnosis names (docs/webhooks.md#why-does-my-signature-check-fail explains each). */
export const SIGNATURE_CAUSES = [
  'valid',
  'json_reserialized',
  'form_reencoded',
  'body_changed',
  'headers_changed',
  'missing_signature',
  'missing_prefix',
  'wrong_encoding',
  'secret_whitespace',
  'other_secret',
  'previous_secret',
  'wrong_secret',
  'stale_timestamp',
  'injected_fault',
  'unknown',
] as const;

/** One cause of SIGNATURE_CAUSES. */
export type SignatureCause = (typeof SIGNATURE_CAUSES)[number];

/** The answer: whether the signature verifies, why not, and one line saying what to change. */
export interface SignatureDiagnosis {
  valid: boolean;
  cause: SignatureCause;
  message: string;
}

/** How far a signed timestamp may be from the handler's clock: 5 minutes, as Standard Webhooks libraries allow. */
export const TIMESTAMP_TOLERANCE_S = 300;

/** What the merchant's handler received: lower-case header names, the raw body, the secret it verified with. */
export interface ReceivedRequest {
  headers: HeaderMap;
  body: string;
  secret?: string | undefined;
}

/** The attempt the received headers name, as the sandbox recorded it. */
export interface SentAttempt {
  deliveryId: string;
  attempt: number;
  headers: HeaderMap;
  body: string;
  /** The injected fault that shaped the attempt (bad-signature, stale-timestamp), if any. */
  fault: string | null;
  /** The secrets that may have signed it: its endpoint's current and replaced one, or its merchant's. */
  signers: readonly KnownSecret[];
  /** How the delivery is signed now, for when its recorded headers do not tell. */
  mode: SignatureMode;
}

/** What the sandbox knows besides the request. */
export interface DiagnosisContext {
  /** The word of the header names (Sandbox in X-Sandbox-Signature). */
  prefix: string;
  sent?: SentAttempt | undefined;
  /** What the headers name when there is no attempt to compare with: an id this sandbox does not know, or a delivery not sent yet. */
  named?: { what: string; known: boolean } | undefined;
  /** Every secret the sandbox knows. */
  secrets: readonly KnownSecret[];
  /** Wall-clock ms when the handler checked, sandbox ms now, and how far sandbox time is ahead. */
  time: { wall: number; sandbox: number; offset: number };
  /** The work this diagnosis may still do (a new WorkBudget of DIAGNOSIS_WORK when not given). */
  budget?: WorkBudget | undefined;
}

/** The fix of every body change: where each stack keeps the raw body. */
export const RAW_BODY =
  "verify the raw bytes as received, before any parsing (express.raw() in Node, file_get_contents('php://input') in PHP, request.get_data() in Python)";

/** A diagnosis of a signature that does not verify. */
export const invalid = (cause: SignatureCause, message: string): SignatureDiagnosis => ({ valid: false, cause, message });

/** A header name as a person writes it: X-Sandbox-Signature, webhook-signature. */
export function shown(name: string, prefix: string): string {
  if (!name.startsWith('x-')) return name;
  const words = name.split('-').slice(2);
  return [`X-${prefix}`, ...words.map((word) => word.charAt(0).toUpperCase() + word.slice(1))].join('-');
}

/** What a signature is, in a mode: what a correct check computes. */
export function recipe(mode: SignatureMode, prefix: string): string {
  if (mode === 'standard')
    return 'the base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>" (v1,<base64> in webhook-signature)';
  const over = mode === 'timestamped' ? `"<X-${prefix}-Timestamp>.<raw body>"` : 'the raw body';
  return `the hex HMAC-SHA256 of ${over} (sha256=<hex> in X-${prefix}-Signature)`;
}

/** Why the signed timestamp would be refused by a handler checking it now, if it would. */
export function staleness(
  headers: HeaderMap,
  mode: SignatureMode,
  c: DiagnosisContext,
  sent?: SentAttempt,
): SignatureDiagnosis | undefined {
  const name = signingHeaders(mode, c.prefix).timestamp;
  if (name === undefined) return undefined;
  const timestamp = Number(headers[name]);
  if (!Number.isInteger(timestamp)) return undefined;
  const off = c.time.wall / 1000 - timestamp;
  if (Math.abs(off) <= TIMESTAMP_TOLERANCE_S) return undefined;
  const header = shown(name, c.prefix);
  if (sent?.fault?.includes('stale-timestamp'))
    return invalid(
      'stale_timestamp',
      `the sandbox sent attempt ${sent.attempt} with an old ${header} on purpose (a stale-timestamp fault rule): your handler is right to refuse it; \`sandbox faults clear\` removes the rule`,
    );
  const sandboxOff = c.time.sandbox / 1000 - timestamp;
  if (Math.abs(sandboxOff) <= TIMESTAMP_TOLERANCE_S && c.time.offset > TIMESTAMP_TOLERANCE_S * 1000)
    return invalid(
      'stale_timestamp',
      `${header} is sandbox time, which is ${formatDuration(c.time.offset)} ahead of the wall clock (sandbox clock advance), and your handler compares it with wall time: in a test that advances the clock, check it against the sandbox's time (GET /_sandbox/clock, or fake timers set to it)`,
    );
  const age = formatDuration(Math.abs(off) * 1000);
  const replay = sent
    ? `sandbox webhooks replay ${sent.deliveryId} sends it again, freshly signed`
    : 'sign it again with a current timestamp';
  return invalid(
    'stale_timestamp',
    `${header} is ${age} ${off > 0 ? 'old' : 'in the future'}, more than the ${TIMESTAMP_TOLERANCE_S / 60} minutes a handler allows, so it is refused as a replay: ${replay}`,
  );
}

/** The digest in `header` spelt otherwise than the sandbox spells it. */
export function misspelt(spelling: Spelling, header: string, mode: SignatureMode): SignatureDiagnosis {
  if (spelling.form === 'missing_prefix')
    return invalid(
      'missing_prefix',
      `${header} holds the right digest without its "${spelling.prefix}" prefix: the sandbox sends ${spelling.prefix}<digest>; whoever built this header must keep it, and a check compares the whole header with "${spelling.prefix}" + the digest`,
    );
  const s = spelling as Extract<Spelling, { form: 'wrong_encoding' }>;
  const how =
    mode === 'standard'
      ? "digest('base64') in Node, base64.b64encode(...digest()) in Python"
      : "digest('hex') in Node, hexdigest() in Python, hash_hmac() in PHP";
  return invalid(
    'wrong_encoding',
    `${header} holds the right digest in ${s.encoding}${s.prefixed ? '' : ' and without its prefix'}; the sandbox writes it in ${s.expected}: ${how}`,
  );
}
