import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import {
  hmacHex,
  safeEqual,
  signatureHeader,
  signatureHeaders,
  signedPayload,
  standardSecret,
  verifySignature,
  verifyWebhook,
} from '../../src/signatures/signing.js';

// GitHub's documented webhook example, recomputed by hand with the openssl CLI:
//   printf '%s' 'Hello, World!' | openssl dgst -sha256 -hmac "It's a Secret to Everybody"
//   -> 757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17
const GITHUB_SECRET = "It's a Secret to Everybody";
const GITHUB_BODY = 'Hello, World!';
const GITHUB_HEX = '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

// A sandbox-shaped body with the seeded secret, also from openssl:
//   printf '%s' 'transID=1&status=Test+Approved' | openssl dgst -sha256 -hmac whsec_test_sandbox
//   printf '%s' '1700000000.transID=1&status=Test+Approved' | openssl dgst -sha256 -hmac whsec_test_sandbox
//   printf '%s' 'transID=1&status=Test+Approved' | openssl dgst -sha256 -hmac whsec_old
const BODY = 'transID=1&status=Test+Approved';
const SANDBOX_HEX = '5075377b28f75de71a5a777fe81bae1dc492c339afcc62b209f70027e76e3740';
const TIMESTAMPED_HEX = '506f85802107556edb35dd87c6c70d078b2dbd3af22cb8d898c4a24c55be4c0f';
const OLD_SECRET_HEX = '60d8e349163481130448a53be54c4e79a93b1beacb4650ab6227b3b98d804211';
const TS = 1700000000;

describe('hmacHex', () => {
  it("matches GitHub's documented example", () => {
    expect(hmacHex(GITHUB_SECRET, GITHUB_BODY)).toBe(GITHUB_HEX);
  });

  it('gives the same answer for a Buffer of the same bytes', () => {
    expect(hmacHex(GITHUB_SECRET, Buffer.from(GITHUB_BODY))).toBe(GITHUB_HEX);
  });

  it('matches openssl for the seeded secret', () => {
    expect(hmacHex('whsec_test_sandbox', BODY)).toBe(SANDBOX_HEX);
  });
});

describe('signatureHeader', () => {
  it('is sha256=<lowercase hex> of the raw body in plain mode', () => {
    expect(signatureHeader('whsec_test_sandbox', 'plain', BODY, TS)).toBe(`sha256=${SANDBOX_HEX}`);
  });

  it('signs "<timestamp>.<body>" in timestamped mode', () => {
    expect(signedPayload('timestamped', BODY, TS)).toBe(`${TS}.${BODY}`);
    expect(signatureHeader('whsec_test_sandbox', 'timestamped', BODY, TS)).toBe(`sha256=${TIMESTAMPED_HEX}`);
  });
});

describe('signatureHeaders', () => {
  const input = { prefix: 'Sandbox', id: 'evt_1', timestamp: TS, body: BODY };

  it('puts only the new secret in X-<Prefix>-Signature during a rotation, the old one in -Previous', () => {
    expect(signatureHeaders({ ...input, mode: 'plain', secrets: ['whsec_test_sandbox', 'whsec_old'] })).toEqual({
      'x-sandbox-signature': `sha256=${SANDBOX_HEX}`,
      'x-sandbox-signature-previous': `sha256=${OLD_SECRET_HEX}`,
    });
    expect(signatureHeaders({ ...input, prefix: 'Acme', mode: 'timestamped', secrets: ['whsec_test_sandbox'] })).toEqual({
      'x-acme-signature': `sha256=${TIMESTAMPED_HEX}`,
    });
  });

  it('signs the Standard Webhooks way in standard mode, both secrets space-separated during a rotation', () => {
    const fresh = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const headers = signatureHeaders({ ...input, mode: 'standard', secrets: [fresh, 'whsec_test_sandbox'] });
    expect(Object.keys(headers).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    const [current, previous] = headers['webhook-signature']!.split(' ');
    expect(current).toBe(new Webhook(fresh).sign('evt_1', new Date(TS * 1000), BODY));
    expect(previous).toBe(new Webhook(standardSecret('whsec_test_sandbox')).sign('evt_1', new Date(TS * 1000), BODY));
  });
});

describe('standardSecret', () => {
  it('keeps a whsec_<base64> secret and writes any other as whsec_ + the base64 of its text (the same key bytes)', () => {
    expect(standardSecret('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBe('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(standardSecret('whsec_test_sandbox')).toBe('whsec_d2hzZWNfdGVzdF9zYW5kYm94');
    expect(Buffer.from('d2hzZWNfdGVzdF9zYW5kYm94', 'base64').toString()).toBe('whsec_test_sandbox');
  });
});

describe('verifyWebhook', () => {
  it('accepts the -Previous header for a receiver that still has the old secret, and nothing signed otherwise', () => {
    const headers = signatureHeaders({
      prefix: 'Sandbox',
      id: 'evt_1',
      timestamp: TS,
      body: BODY,
      mode: 'plain',
      secrets: ['whsec_test_sandbox', 'whsec_old'],
    });
    const options = { mode: 'plain' as const, prefix: 'Sandbox' };
    expect(verifyWebhook(headers, 'whsec_test_sandbox', BODY, options)).toBe(true);
    expect(verifyWebhook(headers, 'whsec_old', BODY, options)).toBe(true);
    expect(verifyWebhook(headers, 'whsec_other', BODY, options)).toBe(false);
    expect(verifyWebhook(headers, 'whsec_old', `${BODY}x`, options)).toBe(false);
  });
});

describe('verifySignature', () => {
  const header = `sha256=${SANDBOX_HEX}`;

  it.each([
    ['the right header', header, 'whsec_test_sandbox', BODY, true],
    ['a rotation header, new secret', `sha256=${SANDBOX_HEX},sha256=${OLD_SECRET_HEX}`, 'whsec_test_sandbox', BODY, true],
    ['a rotation header, old secret', `sha256=${SANDBOX_HEX}, sha256=${OLD_SECRET_HEX}`, 'whsec_old', BODY, true],
    ['the wrong secret', header, 'whsec_test_other', BODY, false],
    ['a changed body', header, 'whsec_test_sandbox', `${BODY} `, false],
    ['upper-case hex', `sha256=${SANDBOX_HEX.toUpperCase()}`, 'whsec_test_sandbox', BODY, false],
    ['no sha256= prefix', SANDBOX_HEX, 'whsec_test_sandbox', BODY, false],
    ['a truncated signature', header.slice(0, -1), 'whsec_test_sandbox', BODY, false],
    ['an empty header', '', 'whsec_test_sandbox', BODY, false],
    ['a missing header', undefined, 'whsec_test_sandbox', BODY, false],
  ] as Array<[string, string | undefined, string, string, boolean]>)('%s -> %s', (_name, value, secret, body, ok) => {
    expect(verifySignature(value, secret, body)).toBe(ok);
  });

  it('checks timestamped signatures against the timestamp', () => {
    const timestamped = `sha256=${TIMESTAMPED_HEX}`;
    expect(verifySignature(timestamped, 'whsec_test_sandbox', BODY, 'timestamped', TS)).toBe(true);
    expect(verifySignature(timestamped, 'whsec_test_sandbox', BODY, 'timestamped', TS + 1)).toBe(false);
    expect(verifySignature(timestamped, 'whsec_test_sandbox', BODY, 'plain')).toBe(false);
  });
});

describe('safeEqual', () => {
  it.each([
    ['abc', 'abc', true],
    ['', '', true],
    ['abc', 'abd', false],
    ['abc', 'ab', false],
    ['ab', 'abc', false],
    ['abc', '', false],
    ['é', 'e', false],
    ['pk_test_1001', 'pk_test_1001', true],
  ])('%j vs %j -> %s', (a, b, equal) => {
    expect(safeEqual(a, b)).toBe(equal);
  });
});
