// Public keys of different terminals are never suffixes of one another: the pure check every way of
// adding terminals uses (the create, the fixtures, an import).
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPublicKeyClash, publicKeyClashText, publicKeysClash } from '../../src/domain/public-keys.js';
import { readFixtures } from '../../src/store/fixtures.js';
import { PublicKeyIndex } from '../../src/store/public-key-index.js';

const keys = (...publicKeys: string[]) => publicKeys.map((publicKey, i) => ({ publicKey, i }));

describe('public keys that end with one another', () => {
  it.each([
    ['1001', 'pk_test_1001', true],
    ['Apk_test_1001', 'pk_test_1001', true],
    ['pk_test_1001', 'pk_test_1001', true],
    ['pk_test_1001', 'pk_test_10011', false],
    ['pk_test_1001', 'pk_test_2002', false],
  ])('%s and %s clash: %s', (a, b, clash) => {
    expect(publicKeysClash(a, b)).toBe(clash);
    expect(publicKeysClash(b, a)).toBe(clash);
  });

  it('says which way they clash', () => {
    expect(publicKeyClashText('1001', 'pk_test_1001')).toBe('is the end of "pk_test_1001"');
    expect(publicKeyClashText('Apk_test_1001', 'pk_test_1001')).toBe('ends with "pk_test_1001"');
    expect(publicKeyClashText('pk_a', 'pk_a')).toBe('is "pk_a"');
  });

  it('finds a clashing pair among many, shorter key first, and none where there is none', () => {
    const many = Array.from({ length: 2000 }, (_, n) => `pk_test_${9001 + n}`);
    expect(findPublicKeyClash(keys(...many))).toBeUndefined();
    const clash = findPublicKeyClash(keys(...many.slice(0, 1000), 'Xpk_test_9500', ...many.slice(1000)));
    expect(clash?.map((k) => k.publicKey)).toEqual(['pk_test_9500', 'Xpk_test_9500']);
    // A key ending several others is found even when unrelated keys sort between them.
    expect(findPublicKeyClash(keys('b_01', 'zzb_01', 'a_01', 'ab_01'))?.map((k) => k.publicKey)).toEqual(['b_01', 'ab_01']);
  });
});

describe('the public key index', () => {
  const terminal = (terNo: number, publicKey: string, merchantId = 'mer_a') => ({ terNo, publicKey, merchantId, privateKey: 'pv' });
  const index = new PublicKeyIndex([
    terminal(1001, 'pk_test_1001'),
    ...Array.from({ length: 500 }, (_, n) => terminal(9001 + n, `pk_test_${9001 + n}`, 'mer_b')),
  ]);

  it("finds the stored key a new one ends with, is the end of, or equals, except the terminal's own", () => {
    expect(index.clashWith('1001')?.terNo).toBe(1001);
    expect(index.clashWith('t_9250')?.terNo).toBe(9250);
    expect(index.clashWith('Apk_test_1001')?.terNo).toBe(1001);
    expect(index.clashWith('pk_test_1001')?.terNo).toBe(1001);
    expect(index.clashWith('pk_test_1001', 1001)).toBeUndefined();
    expect(index.clashWith('pk_test_10011')).toBeUndefined();
    expect(index.clashWith('pk_test_2002')).toBeUndefined();
  });

  it("matches the end of encrypted_data to its terminal, and forgets a removed merchant's", () => {
    const copy = new PublicKeyIndex([terminal(1001, 'pk_test_1001'), terminal(9001, 'pk_test_9001', 'mer_b')]);
    expect(copy.terminalEndingWith('Q2lwaGVypk_test_9001')?.terNo).toBe(9001);
    expect(copy.terminalEndingWith('Q2lwaGVypk_test_9002')).toBeUndefined();
    copy.removeMerchant('mer_b');
    expect(copy.terminalEndingWith('Q2lwaGVypk_test_9001')).toBeUndefined();
    expect(copy.clashWith('9001')).toBeUndefined();
    expect(copy.terminalEndingWith('Q2lwaGVypk_test_1001')?.terNo).toBe(1001);
  });
});

describe('a fixtures file', () => {
  it('is refused, naming both terminals, when a public key of it ends another', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paysandbox-fixtures-'));
    try {
      const path = join(dir, 'fixtures.json');
      const terminal = (terNO: number, public_key: string) => ({ terNO, public_key, private_key: `pv_${terNO}` });
      writeFileSync(
        path,
        JSON.stringify({
          merchants: [
            { id: 'mer_a', name: 'A', webhook_secret: 'whsec_aaaaaaaa', terminals: [terminal(1, 'pk_test_1001')] },
            {
              id: 'mer_b',
              name: 'B',
              webhook_secret: 'whsec_bbbbbbbb',
              terminals: [terminal(2, 'pk_test_2002'), terminal(3, 'live_pk_test_1001')],
            },
          ],
        }),
      );
      expect(() => readFixtures(path)).toThrow(
        `fixtures ${path}: merchants.1.terminals.1.public_key: "live_pk_test_1001" ends with "pk_test_1001" (merchants.0.terminals.0.public_key); public keys of different terminals may never end with one another`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
