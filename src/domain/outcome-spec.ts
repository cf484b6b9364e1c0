// The outcome vocabulary shared by the X-Sandbox-Outcome header and scenario files, and the
// --auto-authenticate flag. One parser, so a word means the same thing wherever it is written.
import { DECLINE_MESSAGES, type DeclineCode, type ScriptedOutcome } from './outcomes.js';
import { parseDuration } from './duration.js';

const DECLINE_CODES = Object.keys(DECLINE_MESSAGES) as DeclineCode[];
const base = { refundFails: false, chargeback: false };

/** The words of the vocabulary with what each does, for error messages and the docs. */
export const OUTCOME_WORDS: ReadonlyArray<{ word: string; means: string }> = [
  { word: 'approve', means: 'approved at once, no authentication (Test Approved 25)' },
  { word: 'decline:<code>', means: `declined at once with <code>, one of ${DECLINE_CODES.join(', ')}` },
  { word: 'challenge', means: 'authentication page first; approved when it passes' },
  { word: 'challenge:fail', means: 'authentication page first; it fails whatever is entered (declined authentication_failed)' },
  { word: 'challenge:then-decline:<code>', means: 'authentication page first; once it passes, declined with <code>' },
  { word: 'hang', means: 'stays Pending: the gateway never answers, no webhook' },
  { word: 'refund-fails', means: 'approved at once; refunds of it fail later (refund.failed)' },
  { word: 'chargeback', means: 'approved at once; a chargeback opens shortly after' },
];

/** Every outcome parseOutcomeSpec takes (in any case, spaces around allowed), each decline code spelled out. */
export const OUTCOME_SPECS: readonly string[] = [
  'approve',
  'challenge',
  'challenge:fail',
  'hang',
  'refund-fails',
  'chargeback',
  ...DECLINE_CODES.map((code) => `decline:${code}`),
  ...DECLINE_CODES.map((code) => `challenge:then-decline:${code}`),
];

/** One line listing the vocabulary, for error messages. */
export const OUTCOME_VOCABULARY = OUTCOME_WORDS.map((w) => w.word).join(', ');

function declineCode(text: string | undefined): DeclineCode | undefined {
  return DECLINE_CODES.find((code) => code === text);
}

/** Parses one outcome word ("decline:insufficient_funds"); undefined when it is not in the vocabulary. */
export function parseOutcomeSpec(text: string): ScriptedOutcome | undefined {
  const spec = text.trim().toLowerCase();
  if (spec === 'approve') return { ...base, challenge: false, authorisation: { result: 'approve' } };
  if (spec === 'challenge') return { ...base, challenge: true, authorisation: { result: 'approve' } };
  // The customer's OTP cannot be forced, so a failing challenge is one whose verdict is the
  // decline a failed 3-D Secure gives: the merchant sees exactly what a real failure sends.
  if (spec === 'challenge:fail') return { ...base, challenge: true, authorisation: { result: 'decline', code: 'authentication_failed' } };
  if (spec === 'hang') return { ...base, challenge: false, authorisation: { result: 'hang' } };
  if (spec === 'refund-fails') return { ...base, challenge: false, authorisation: { result: 'approve' }, refundFails: true };
  if (spec === 'chargeback') return { ...base, challenge: false, authorisation: { result: 'approve' }, chargeback: true };
  if (spec.startsWith('decline:')) {
    const code = declineCode(spec.slice('decline:'.length));
    return code && { ...base, challenge: false, authorisation: { result: 'decline', code } };
  }
  if (spec.startsWith('challenge:then-decline:')) {
    const code = declineCode(spec.slice('challenge:then-decline:'.length));
    return code && { ...base, challenge: true, authorisation: { result: 'decline', code } };
  }
  return undefined;
}

/** What --auto-authenticate asks for: the verdict and how much sandbox time passes first. */
export interface AutoAuthenticate {
  outcome: 'approve' | 'decline';
  delayMs: number;
}

/** Parses "approve", "decline", "approve:5s"; undefined when malformed. */
export function parseAutoAuthenticate(text: string): AutoAuthenticate | undefined {
  const match = /^(approve|decline)(?::(.+))?$/.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  const delayMs = match[2] === undefined ? 0 : parseDuration(match[2]);
  if (delayMs === undefined) return undefined;
  return { outcome: match[1] as AutoAuthenticate['outcome'], delayMs };
}
