// What `sandbox receive` says about a request: whether it is a webhook at all (a browser's GET
// /favicon.ico is not), and why a webhook's signature does not verify. First the way it is
// signed (--signature, --header-prefix), read from its headers; then the sandbox that sent it
// (--url) diagnoses it as `sandbox verify` does: the cause (other_secret, secret_whitespace,
// body_changed, ...) and one line saying what to change.
import type http from 'node:http';
import { verifyWebhook } from '../signatures/signing.js';
import type { SignatureMode } from '../domain/vocabularies.js';
import { ControlClient } from './control-client.js';
import type { SignatureDiagnosisView } from '../views/signature-diagnosis.js';

/** How receive verifies, and where it asks about deliveries. */
export interface VerifySettings {
  secret: string;
  signature: string;
  headerPrefix: string;
  url: string;
  controlToken?: string;
}

/** How long receive waits for the sandbox's diagnosis before giving the general reason. */
const LOOKUP_TIMEOUT_MS = 5000;

const STANDARD_HEADERS = ['webhook-id', 'webhook-signature'];

/** True for a POST that carries a webhook's headers: a sandbox's X-<prefix>-Signature/-Event-Id/-Delivery-Id, or Standard Webhooks' webhook-id/-signature. */
export function looksLikeWebhook(method: string | undefined, headers: http.IncomingHttpHeaders): boolean {
  return (
    method === 'POST' &&
    Object.keys(headers).some((name) => /^x-[a-z0-9]+-(signature|event-id|delivery-id)$/.test(name) || STANDARD_HEADERS.includes(name))
  );
}

/** The words of the X-<word>-Signature headers present, as a flag would take them ("Acme"). */
function signaturePrefixes(headers: http.IncomingHttpHeaders): string[] {
  return Object.keys(headers).flatMap((name) => {
    const word = /^x-([a-z0-9]+)-signature$/.exec(name)?.[1];
    return word ? [word[0].toUpperCase() + word.slice(1)] : [];
  });
}

/** The way it is signed, when --signature or --header-prefix does not match it; undefined when they do. */
function settingsProblem(headers: http.IncomingHttpHeaders, body: string, s: VerifySettings): string | undefined {
  const prefix = s.headerPrefix.toLowerCase();
  const verifies = (mode: SignatureMode) => verifyWebhook(headers, s.secret, body, { mode, prefix: s.headerPrefix });
  const standard = headers['webhook-signature'] !== undefined;
  const ours = headers[`x-${prefix}-signature`] !== undefined;
  if (standard && !ours && s.signature !== 'standard')
    return 'it is signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature headers): pass --signature standard';
  if (!standard && !ours) {
    const [other] = signaturePrefixes(headers);
    if (other) return `it is signed in X-${other}-Signature: pass --header-prefix ${other}`;
    return `it carries no signature header (X-${s.headerPrefix}-Signature or webhook-signature)`;
  }
  if (ours && !standard && s.signature === 'standard') {
    const mode = (['plain', 'timestamped'] as const).find(verifies);
    return `it is signed in X-${s.headerPrefix}-Signature, not the Standard Webhooks way: pass --signature ${mode ?? 'plain or timestamped, as the sandbox signs'}`;
  }
  const other = s.signature === 'plain' ? 'timestamped' : s.signature === 'timestamped' ? 'plain' : undefined;
  if (ours && other && verifies(other))
    return `it is signed in ${other} mode${other === 'timestamped' ? ' (HMAC of "<timestamp>.<body>")' : ' (HMAC of the body)'}: pass --signature ${other}`;
  return undefined;
}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer in time')), LOOKUP_TIMEOUT_MS);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Why it does not verify: receive's own flags, else the diagnosis of the sandbox at --url (cause and message). */
export interface SignatureCauseView {
  /** A cause of the signature diagnosis (docs/webhooks.md), or receive_flags when --signature or --header-prefix is not the way it is signed. */
  cause: string;
  message: string;
}

/** What receive says when the sandbox at --url does not answer: which secrets could have signed it. */
function unaskedProblem(headers: http.IncomingHttpHeaders, s: VerifySettings): string {
  const deliveryId = headers[`x-${s.headerPrefix.toLowerCase()}-delivery-id`];
  if (typeof deliveryId !== 'string')
    return `it is not signed with --secret, and it names no delivery (X-${s.headerPrefix}-Delivery-Id): whoever sent it signs with a secret of their own (sandbox listen --forward-to: its --secret)`;
  return `delivery ${deliveryId} is not signed with --secret: a delivery to a registered webhook endpoint (we_...) is signed with that endpoint's secret, any other with its merchant's webhook secret; with --url of the sandbox that sent it (now ${s.url}), receive says why`;
}

/** The headers as the diagnosis takes them (node:http's, without the absent ones). */
function sentHeaders(headers: http.IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value;
  return out;
}

/**
 * Why a webhook's signature does not verify with the receiver's settings: receive's own
 * --signature/--header-prefix first (the sandbox cannot know them), else the sandbox's diagnosis of
 * the headers, body and --secret (POST /_sandbox/signatures/diagnose), the same answer as `sandbox verify`.
 */
export async function signatureCause(headers: http.IncomingHttpHeaders, body: string, s: VerifySettings): Promise<SignatureCauseView> {
  const flags = settingsProblem(headers, body, s);
  if (flags) return { cause: 'receive_flags', message: flags };
  let answer: SignatureDiagnosisView;
  try {
    answer = await withTimeout(
      new ControlClient(s).post<SignatureDiagnosisView>('/signatures/diagnose', { headers: sentHeaders(headers), body, secret: s.secret }),
    );
  } catch {
    return { cause: 'unknown', message: unaskedProblem(headers, s) };
  }
  if (answer.valid)
    return {
      cause: 'unknown',
      message: `the sandbox finds it valid (${answer.message}), yet it does not verify with --signature ${s.signature} --header-prefix ${s.headerPrefix}`,
    };
  return { cause: answer.cause, message: answer.message };
}
