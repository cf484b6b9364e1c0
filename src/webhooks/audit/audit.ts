// What a webhook audit takes and answers (`sandbox audit-webhooks`, startSandbox().auditWebhooks()):
// the handler URL and settings and their check, the events and credentials it sends with, and the
// graded cases; webhooks/audit/cases.ts sends the cases and grades them.
import { SIGNATURE_MODES, type SignatureMode } from '../../domain/vocabularies.js';
import type { TerminalKeys } from '../../crypto/s2s-cipher.js';
import { parseHttpUrl } from '../../domain/http-url.js';
import { controlTargetProblem } from '../../domain/control-target.js';
import { isControlTarget } from '../../runtime/machine-names.js';
import type { EventRecord } from '../../store/events-repo.js';

/** An event type no gateway sends today; a handler must answer it 2xx and ignore it. */
export const UNKNOWN_EVENT_TYPE = 'payment.audit_unknown_type';

/** The events and credentials one audit sends with. */
export interface AuditMaterial {
  /** Where the events came from: "synthetic" (a private in-memory sandbox) or the running sandbox's URL. */
  source: string;
  merchantId: string;
  /** The secret the handler verifies with. */
  secret: string;
  /** The terminal keys S2S `data=` is encrypted with; null skips the encrypted-S2S case. */
  keys: TerminalKeys | null;
  /** payment.authorized of one /v1/ payment... */
  authorized: EventRecord;
  /** ...and payment.captured of the same payment (the out-of-order pair). */
  captured: EventRecord;
  /** An S2S transaction's event (its data is the spec §6.1 field set); null skips the encrypted-S2S case. */
  s2s: EventRecord | null;
}

/** How to send: the settings of the sandbox the handler is built for. */
export interface AuditSettings {
  signatureMode: SignatureMode;
  headerPrefix: string;
  /** Every answer must come within this many milliseconds (the gateway's limit is 5 s). */
  timeoutMs: number;
}

/** The longest --timeout the audit takes: a handler slower than this is failing anyway. */
export const MAX_AUDIT_TIMEOUT_MS = 60_000;

/** Why the handler URL or a setting cannot be used: the setting's key and what it must be; undefined when all are fine. */
export function auditInputProblem(
  url: string,
  settings: AuditSettings,
): { key: 'url' | 'signature' | 'headerPrefix' | 'timeout'; problem: string } | undefined {
  const parsed = parseHttpUrl(url);
  if (!parsed)
    return {
      key: 'url',
      problem: `must be the http(s) URL of the webhook handler, such as http://127.0.0.1:3000/webhooks, got ${JSON.stringify(url)}`,
    };
  // The audit's forged and replayed events must not reach a sandbox's control API, as no delivery does.
  if (isControlTarget(parsed, { host: '127.0.0.1', publicUrl: undefined })) return { key: 'url', problem: controlTargetProblem(url) };
  if (!SIGNATURE_MODES.includes(settings.signatureMode))
    return {
      key: 'signature',
      problem: `must be ${SIGNATURE_MODES.join(' or ')} (the mode the handler verifies), got ${JSON.stringify(settings.signatureMode)}`,
    };
  if (!/^[A-Za-z][A-Za-z0-9]{0,31}$/.test(settings.headerPrefix))
    return {
      key: 'headerPrefix',
      problem: `must be letters and digits, starting with a letter, like Sandbox, got ${JSON.stringify(settings.headerPrefix)}`,
    };
  if (!Number.isInteger(settings.timeoutMs) || settings.timeoutMs <= 0 || settings.timeoutMs > MAX_AUDIT_TIMEOUT_MS) {
    return {
      key: 'timeout',
      problem: `must be a time limit greater than 0 and at most ${MAX_AUDIT_TIMEOUT_MS / 1000} s (the gateway's is 5 s), got ${JSON.stringify(settings.timeoutMs)} ms`,
    };
  }
  return undefined;
}

/** must-pass: a failure fails the audit; advice: reported, never fails it. */
export type CaseLevel = 'must-pass' | 'advice';

/** One graded case. */
export interface AuditCase {
  id: string;
  name: string;
  level: CaseLevel;
  result: 'pass' | 'fail' | 'skip';
  /** Why, in words: the status and latency, and what a correct handler does when it failed. */
  reason: string;
  /** The status of the (last) answer, null when none came. */
  status: number | null;
  /** The latency of the (last) answer in milliseconds, null when the case sent nothing. */
  latencyMs: number | null;
}

/** The whole audit. */
export interface AuditResult {
  url: string;
  /** True when no must-pass case failed. */
  passed: boolean;
  signatureMode: SignatureMode;
  headerPrefix: string;
  timeoutMs: number;
  source: string;
  merchantId: string;
  cases: AuditCase[];
  summary: { pass: number; fail: number; skip: number; mustPassFailed: number };
}
