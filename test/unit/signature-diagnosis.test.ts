// The pure rules of a signature diagnosis: how a body differs from the bytes signed, and the
// findings a real delivery cannot produce on demand in an e2e test (a capture replayed later, a
// Standard Webhooks rotation, an endpoint rotated twice, upper-case hex, a secret without whsec_).
import { describe, expect, it } from 'vitest';
import { bodyDifference } from '../../src/domain/body-difference.js';
import type { KnownSecret } from '../../src/signatures/secret-diagnosis.js';
import { diagnoseSignature } from '../../src/signatures/diagnosis.js';
import type { DiagnosisContext, SentAttempt } from '../../src/signatures/findings.js';
import { signatureHeaders, standardSecret } from '../../src/signatures/signing.js';
import type { SignatureMode } from '../../src/domain/vocabularies.js';

describe('bodyDifference', () => {
  const sent = '{"event":"payment.authorized","id":"evt_1","data":{"amount":1050,"name":"Zoë"}}';
  it.each([
    ['the same text', sent, undefined, ''],
    ['indented', JSON.stringify(JSON.parse(sent), null, 2), 'json_reserialized', 'other whitespace'],
    ['spaced as Python writes it', sent.replaceAll(',', ', ').replaceAll(':', ': '), 'json_reserialized', 'other whitespace'],
    [
      'keys reordered',
      '{"id":"evt_1","event":"payment.authorized","data":{"name":"Zoë","amount":1050}}',
      'json_reserialized',
      'keys in another order',
    ],
    ['non-ASCII escaped', sent.replace('ë', '\\u00eb'), 'json_reserialized', 'other escapes or number forms'],
    ['a number written otherwise', sent.replace('1050', '1050.0'), 'json_reserialized', 'other escapes or number forms'],
    ['another value', sent.replace('1050', '105'), 'body_changed', 'differs from character'],
    ['empty', '', 'body_changed', 'is empty'],
    ['an object turned into text', '[object Object]', 'body_changed', '"[object Object]"'],
    ['with a byte order mark', `\ufeff${sent}`, 'body_changed', 'byte order mark'],
    ['with a newline at its end', `${sent}\n`, 'body_changed', 'ends with "\\n"'],
    ['cut short', sent.slice(0, 20), 'body_changed', 'cut short: 20 of the'],
    ['decoded as Latin-1', Buffer.from(sent, 'utf8').toString('latin1'), 'body_changed', 'Latin-1'],
  ])('%s', (_, received, change, how) => {
    const found = bodyDifference(sent, received);
    expect(found?.change).toBe(change);
    if (found) expect(found.how).toContain(how);
  });

  // What the sandbox sends now: indented, with a final newline, so that re-serialised JSON never matches.
  const indented = `${JSON.stringify(JSON.parse(sent), null, 2)}\n`;
  it.each([
    ['parsed and serialised again by JSON.stringify', JSON.stringify(JSON.parse(indented)), 'json_reserialized', 'other whitespace'],
    [
      "trimmed (a shell's $(...), .trim()) or re-indented",
      indented.trimEnd(),
      'body_changed',
      'lacks the "\\n" at its end the sandbox sent: something trimmed it (a shell\'s $(...), .trim(), strip()) or wrote it again',
    ],
    ['saved with jq -r, a newline more', `${indented}\n`, 'body_changed', 'ends with "\\n"'],
  ])('an indented body %s', (_, received, change, how) => {
    const found = bodyDifference(indented, received);
    expect(found?.change).toBe(change);
    expect(found?.how).toContain(how);
  });

  it('a form: the same fields reordered or escaped otherwise, and a changed value', () => {
    const form = 'transID=1&status=Test+Approved&response=Approved+%28test%29';
    expect(bodyDifference(form, 'status=Test+Approved&transID=1&response=Approved+%28test%29')).toMatchObject({
      change: 'form_reencoded',
      how: expect.stringContaining('the fields are in another order'),
    });
    expect(bodyDifference(form, 'transID=1&status=Test%20Approved&response=Approved%20(test)')?.how).toContain(
      'spaces are %20 instead of +, other characters are escaped otherwise',
    );
    expect(bodyDifference(form, 'transID=2&status=Test+Approved&response=Approved+%28test%29')?.change).toBe('body_changed');
  });
});

describe('diagnoseSignature', () => {
  const NOW = 1_800_000_000_000;
  const body = '{"event":"payment.authorized","id":"evt_1"}';
  const merchant: KnownSecret = { value: 'whsec_test_sandbox', owner: { kind: 'merchant', id: 'mer_sandbox', merchantId: 'mer_sandbox' } };
  const owner = { kind: 'endpoint' as const, id: 'we_1', merchantId: 'mer_sandbox' };
  const current: KnownSecret = { value: 'whsec_bmV3IHNlY3JldCBvZiB0aGUgZW5kcG9pbnQ=', owner };
  const replaced: KnownSecret = {
    value: 'whsec_b2xkIHNlY3JldCBvZiB0aGUgZW5kcG9pbnQ=',
    owner,
    replaced: { at: NOW - 60_000, until: NOW + 86_340_000 },
  };

  /** An attempt signed at `at` (sandbox ms) with `secrets` in `mode`, as the worker records it. */
  function attempt(mode: SignatureMode, secrets: string[], signers: KnownSecret[], at = NOW): SentAttempt {
    const timestamp = Math.floor(at / 1000);
    const headers = {
      ...signatureHeaders({ mode, secrets, prefix: 'Sandbox', id: 'evt_1', timestamp, body }),
      'x-sandbox-delivery-id': 'whd_1',
      'x-sandbox-timestamp': String(timestamp),
    };
    return { deliveryId: 'whd_1', attempt: 1, headers, body, fault: null, signers, mode };
  }
  const context = (sent: SentAttempt, wall = NOW): DiagnosisContext => ({
    prefix: 'Sandbox',
    sent,
    secrets: [merchant, current, replaced],
    time: { wall, sandbox: NOW, offset: 0 },
  });

  it('stale_timestamp for a captured webhook checked 10 minutes later: replay it for a fresh signature', () => {
    const sent = attempt('timestamped', [merchant.value], [merchant]);
    const answer = diagnoseSignature({ headers: sent.headers, body, secret: merchant.value }, context(sent, NOW + 600_000));
    expect(answer).toEqual({
      valid: false,
      cause: 'stale_timestamp',
      message:
        'X-Sandbox-Timestamp is 10m old, more than the 5 minutes a handler allows, so it is refused as a replay: sandbox webhooks replay whd_1 sends it again, freshly signed',
    });
  });

  it('the 5 minutes a handler allows end at 300 s: checked exactly 300 s after signing it is valid, at 301 s stale_timestamp', () => {
    const sent = attempt('timestamped', [merchant.value], [merchant]);
    const checkedAfter = (seconds: number) =>
      diagnoseSignature({ headers: sent.headers, body, secret: merchant.value }, context(sent, NOW + seconds * 1000)).cause;
    expect(checkedAfter(300)).toBe('valid');
    expect(checkedAfter(-300)).toBe('valid');
    expect(checkedAfter(301)).toBe('stale_timestamp');
    expect(checkedAfter(-301)).toBe('stale_timestamp');
  });

  it('valid in standard mode with the replaced secret while the rotation lasts: webhook-signature carries both', () => {
    const sent = attempt('standard', [current.value, replaced.value], [current, replaced]);
    expect(diagnoseSignature({ headers: sent.headers, body, secret: replaced.value }, context(sent)).cause).toBe('valid');
  });

  it('unknown when none of the secrets that sign the delivery now made its signature (rotated twice since)', () => {
    const sent = attempt('plain', ['whsec_b2xkZXN0IHNlY3JldA=='], [current, replaced]);
    expect(diagnoseSignature({ headers: sent.headers, body, secret: current.value }, context(sent))).toMatchObject({
      cause: 'unknown',
      message: expect.stringContaining('rotated again since'),
    });
  });

  it('wrong_encoding for upper-case hex, other_secret for the secret without whsec_ in plain mode', () => {
    const sent = attempt('plain', [merchant.value], [merchant]);
    const upper = {
      ...sent.headers,
      'x-sandbox-signature': sent.headers['x-sandbox-signature']!.toUpperCase().replace('SHA256=', 'sha256='),
    };
    expect(diagnoseSignature({ headers: upper, body }, context(sent)).message).toContain('in upper-case hex');
    expect(diagnoseSignature({ headers: sent.headers, body, secret: 'test_sandbox' }, context(sent))).toMatchObject({
      cause: 'other_secret',
      message: expect.stringContaining('without its whsec_ start'),
    });
  });

  it('plain mode, the Standard Webhooks form of the secret with a newline: other_secret (trimming it does not help), not secret_whitespace', () => {
    const sent = attempt('plain', [merchant.value], [merchant]);
    const standard = standardSecret(merchant.value);
    expect(standard).not.toBe(merchant.value);
    expect(diagnoseSignature({ headers: sent.headers, body, secret: `${standard}\n` }, context(sent))).toEqual({
      valid: false,
      cause: 'other_secret',
      message: expect.stringContaining("that is the Standard Webhooks form of merchant mer_sandbox's webhook secret"),
    });
    // The same text's own newline is what trimming fixes.
    expect(diagnoseSignature({ headers: sent.headers, body, secret: `${merchant.value}\n` }, context(sent)).cause).toBe(
      'secret_whitespace',
    );
  });
});
