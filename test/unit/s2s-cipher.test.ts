import { execFileSync } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildEncryptedData,
  decryptText,
  decryptWebhookData,
  deriveKeyAndIv,
  encryptText,
  splitEncryptedData,
} from '../../src/crypto/s2s-cipher.js';
import { SandboxError } from '../../src/errors.js';

const KEYS = { publicKey: 'pk_test_1001', privateKey: 'pv_test_1001' };
const OPENSSL = '/usr/bin/openssl';
const hasOpenssl = existsSync(OPENSSL);

// Known answers, produced once by hand with the openssl CLI (keys pk_test_1001 / pv_test_1001):
//   K=$(printf '%s' pv_test_1001 | openssl dgst -sha256 -r | cut -c1-32)   # 7a19ab14ed262b7dd272e13b09d3271d
//   I=$(printf '%s' pk_test_1001 | openssl dgst -sha256 -r | cut -c1-16)   # a7aca1a775b18990
//   printf '%s' "$PLAINTEXT" | openssl enc -aes-256-cbc -K $(printf '%s' $K | xxd -p -c256) \
//     -iv $(printf '%s' $I | xxd -p -c256) -base64 -A | base64 -w0
const KEY_ASCII = '7a19ab14ed262b7dd272e13b09d3271d';
const IV_ASCII = 'a7aca1a775b18990';
const PLAIN_1 = 'a=1&b=two+words';
const SINGLE_1 = 'zxt9N5jA31IYWCJQVcnvwQ==';
const DOUBLE_1 = 'enh0OU41akEzMUlZV0NKUVZjbnZ3UT09';
const PLAIN_2 = 'amount=10.00&currency=EUR&reference=ord_1';
const SINGLE_2 = 'F/bjc5fHBiRL6L8QBHZuhWSOpc43Q2k+LqOBzWx7AMBa0VtsGB07N0NVRshE6QlY';
const DOUBLE_2 = 'Ri9iamM1ZkhCaVJMNkw4UUJIWnVoV1NPcGM0M1EyaytMcU9Celd4N0FNQmEwVnRzR0IwN04wTlZSc2hFNlFsWQ==';
const DOUBLE_EMPTY = 'QjVPSnV1RGJGY0cyRkN3dFhGOEtjUT09';

const hex = (ascii: string): string => Buffer.from(ascii, 'ascii').toString('hex');

function opensslEncrypt(plaintext: string): string {
  return execFileSync(OPENSSL, ['enc', '-aes-256-cbc', '-K', hex(KEY_ASCII), '-iv', hex(IV_ASCII), '-base64', '-A'], {
    input: plaintext,
  })
    .toString('ascii')
    .trim();
}

function opensslDecrypt(singleBase64: string): string {
  return execFileSync(OPENSSL, ['enc', '-d', '-aes-256-cbc', '-K', hex(KEY_ASCII), '-iv', hex(IV_ASCII), '-base64', '-A'], {
    input: singleBase64,
  }).toString('utf8');
}

const once = (b64: string): string => Buffer.from(b64, 'base64').toString('ascii');
const twice = (ascii: string): string => Buffer.from(ascii, 'ascii').toString('base64');

/** Runs fn, expects a decryption_failed SandboxError on encrypted_data, and returns its message. */
function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SandboxError);
    const e = err as SandboxError;
    expect(e.code).toBe('decryption_failed');
    expect(e.param).toBe('encrypted_data');
    expect(e.status).toBe(400);
    return e.message;
  }
  throw new Error('expected a decryption_failed error');
}

describe('s2s-cipher', () => {
  it('derives key and iv as the ASCII prefixes of the hex SHA-256 digests', () => {
    const { key, iv } = deriveKeyAndIv(KEYS);
    expect(key.toString('ascii')).toBe(KEY_ASCII);
    expect(iv.toString('ascii')).toBe(IV_ASCII);
    expect(key.length).toBe(32);
    expect(iv.length).toBe(16);
  });

  it('encrypts to the openssl known answers (double base64)', () => {
    expect(encryptText(PLAIN_1, KEYS)).toBe(DOUBLE_1);
    expect(encryptText(PLAIN_2, KEYS)).toBe(DOUBLE_2);
    expect(encryptText('', KEYS)).toBe(DOUBLE_EMPTY);
    expect(once(DOUBLE_1)).toBe(SINGLE_1);
  });

  it('decrypts the openssl known answers without warnings', () => {
    expect(decryptText(DOUBLE_1, KEYS)).toEqual({ plaintext: PLAIN_1, warnings: [] });
    expect(decryptText(DOUBLE_2, KEYS)).toEqual({ plaintext: PLAIN_2, warnings: [] });
    expect(decryptText(DOUBLE_EMPTY, KEYS)).toEqual({ plaintext: '', warnings: [] });
  });

  it('builds encrypted_data as the ciphertext followed by the public key unchanged', () => {
    expect(buildEncryptedData(PLAIN_1, KEYS)).toBe(`${DOUBLE_1}pk_test_1001`);
  });

  it.skipIf(!hasOpenssl)('decrypts what the openssl CLI encrypts at test time (double base64)', () => {
    const query = 'amount=25.50&currency=USD&name=Jane+Doe&email=jane%40example.com';
    expect(decryptText(twice(opensslEncrypt(query)), KEYS)).toEqual({ plaintext: query, warnings: [] });
  });

  it.skipIf(!hasOpenssl)('produces ciphertext the openssl CLI decrypts after one base64 decode', () => {
    const query = 'amount=25.50&currency=USD&desc=caf%C3%A9&note=a+b';
    expect(opensslDecrypt(once(encryptText(query, KEYS)))).toBe(query);
  });

  it('round-trips unicode plaintext', () => {
    const text = 'name=Zoë Øster&city=Zürich&emoji=💳&jp=支払い';
    expect(decryptText(encryptText(text, KEYS), KEYS)).toEqual({ plaintext: text, warnings: [] });
  });

  it("round-trips plaintext with '+' and ' ' characters", () => {
    const text = 'a=b+c&d=e f&g=+ +  ++';
    expect(decryptText(encryptText(text, KEYS), KEYS).plaintext).toBe(text);
  });

  it('decryptWebhookData returns the plaintext of a webhook data parameter', () => {
    expect(decryptWebhookData(DOUBLE_2, KEYS)).toBe(PLAIN_2);
  });

  it('splits the public key off encrypted_data and decrypts the ciphertext part', () => {
    const split = splitEncryptedData(buildEncryptedData(PLAIN_2, KEYS), 'pk_test_1001');
    expect(split).toEqual({ cipherText: DOUBLE_2, publicKey: 'pk_test_1001' });
    expect(decryptText(split.cipherText, KEYS).plaintext).toBe(PLAIN_2);
  });

  it('fails when no terminal was found for encrypted_data, or its key does not end it', () => {
    for (const key of [undefined, 'pk_test_1002']) {
      const message = failure(() => splitEncryptedData(`${DOUBLE_1}pk_test_1001`, key));
      expect(message).toContain('does not end with a known terminal public_key');
      expect(message).toContain("append the terminal's public_key unchanged");
    }
  });

  it("never emits '+' or '/' in the canonical form, since base64 of base64 text cannot contain them", () => {
    for (let i = 0; i < 300; i++) expect(encryptText(`n=${i}&pad=${'x'.repeat(i % 17)}`, KEYS)).toMatch(/^[A-Za-z0-9]*=*$/);
  });

  it("fails when a '+' was turned into a space (form not URL-encoded), and confirms the repair works", () => {
    expect(SINGLE_2).toContain('+');
    const message = failure(() => decryptText(SINGLE_2.replaceAll('+', ' '), KEYS));
    expect(message).toContain("encrypted_data contains spaces: a '+' was turned into a space");
    expect(message).toContain('URL-encode encrypted_data');
    expect(message).toContain('decrypts correctly');
  });

  it('reports spaces before any other problem, even when the text is otherwise broken', () => {
    const message = failure(() => decryptText('not base64 at all!', KEYS));
    expect(message).toContain('encrypted_data contains spaces');
    expect(message).not.toContain('decrypts correctly');
  });

  it('fails when encrypted_data is not base64', () => {
    const message = failure(() => decryptText('abc$def%ghi', KEYS));
    expect(message).toContain('encrypted_data is not base64');
    expect(message).toContain('"$"');
  });

  it('fails when the base64 length is impossible', () => {
    expect(failure(() => decryptText('abcde', KEYS))).toContain('encrypted_data is not base64');
    expect(failure(() => decryptText('abcd==', KEYS))).toContain('encrypted_data is not base64');
  });

  it('fails with the padding message when the private key is wrong', () => {
    const message = failure(() => decryptText(DOUBLE_1, { ...KEYS, privateKey: 'pv_test_1002' }));
    expect(message).toContain('could not be decrypted: the padding is wrong');
    expect(message).toContain("not this terminal's private_key");
  });

  it('fails when the decoded ciphertext is not a multiple of 16 bytes', () => {
    const truncated = twice(once(DOUBLE_2).slice(0, 40));
    const message = failure(() => decryptText(truncated, KEYS));
    expect(message).toContain('not a multiple of 16');
    expect(message).toContain('truncated');
  });

  it('fails when the decrypted bytes are not valid UTF-8', () => {
    const { key, iv } = deriveKeyAndIv(KEYS);
    const cipher = createCipheriv('aes-256-cbc', key, iv);
    const raw = Buffer.concat([cipher.update(Buffer.from([0x61, 0xff, 0xfe, 0x62])), cipher.final()]);
    const message = failure(() => decryptText(twice(raw.toString('base64')), KEYS));
    expect(message).toContain('not valid UTF-8');
  });

  it('fails when there is no ciphertext before the public key', () => {
    const split = splitEncryptedData('pk_test_1001', 'pk_test_1001');
    expect(failure(() => decryptText(split.cipherText, KEYS))).toContain('no ciphertext');
  });

  it('accepts single base64 with a warning', () => {
    expect(decryptText(SINGLE_1, KEYS)).toEqual({
      plaintext: PLAIN_1,
      warnings: ["encrypted_data was base64-encoded once; the gateway's form is base64 applied twice"],
    });
    expect(decryptText(SINGLE_2, KEYS).plaintext).toBe(PLAIN_2);
  });

  it("accepts missing '=' padding on the outer base64 with a warning", () => {
    expect(DOUBLE_2.endsWith('==')).toBe(true);
    expect(decryptText(DOUBLE_2.replace(/=+$/, ''), KEYS)).toEqual({
      plaintext: PLAIN_2,
      warnings: ["base64 '=' padding was missing; it was accepted"],
    });
  });

  it("accepts missing '=' padding on the inner base64 with a warning", () => {
    const innerUnpadded = twice(SINGLE_1.replace(/=+$/, ''));
    expect(decryptText(innerUnpadded, KEYS)).toEqual({
      plaintext: PLAIN_1,
      warnings: ["base64 '=' padding was missing; it was accepted"],
    });
  });

  it('warns once for missing padding at both levels, and once more for single base64', () => {
    const bothUnpadded = twice(SINGLE_1.replace(/=+$/, '')).replace(/=+$/, '');
    expect(decryptText(bothUnpadded, KEYS).warnings).toEqual(["base64 '=' padding was missing; it was accepted"]);
    expect(decryptText(SINGLE_1.replace(/=+$/, ''), KEYS).warnings).toEqual([
      "encrypted_data was base64-encoded once; the gateway's form is base64 applied twice",
      "base64 '=' padding was missing; it was accepted",
    ]);
  });
});
