import { describe, expect, it } from 'vitest';
import { newId, newSecret, newToken, newTransId } from '../../src/domain/ids.js';

const many = <T>(n: number, make: () => T): T[] => Array.from({ length: n }, make);
const sorted = (values: string[]) => [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

describe('ids', () => {
  it('transIDs are 15 digits, never start with 0, and increase even when made in the same millisecond', () => {
    const ids = many(5000, newTransId);
    for (const id of ids) expect(id).toMatch(/^[1-9]\d{14}$/);
    for (let i = 1; i < ids.length; i++) expect(BigInt(ids[i]!)).toBeGreaterThan(BigInt(ids[i - 1]!));
  });

  it('transIDs start from the wall clock, so a restarted sandbox goes on above the ids it made before', () => {
    const before = Date.now();
    const id = Number(newTransId());
    expect(id).toBeGreaterThanOrEqual(before * 100);
  });

  it('object ids keep their prefix and 16 base62 characters, are unique, and sort by creation time', async () => {
    const first = many(2000, () => newId('pay'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = newId('pay');
    for (const id of first) expect(id).toMatch(/^pay_[A-Za-z0-9]{16}$/);
    expect(new Set(first).size).toBe(first.length);
    // Ids of one millisecond share a prefix; a later millisecond sorts after all of them.
    expect(sorted([...first, later]).at(-1)).toBe(later);
  });

  it('page tokens are 43 base64url characters, unique, and sort by creation time', async () => {
    const first = many(2000, newToken);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = newToken();
    for (const token of first) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(first).size).toBe(first.length);
    expect(sorted([...first, later]).at(-1)).toBe(later);
  });

  it('page tokens made in the same millisecond differ in 34 random characters', () => {
    const [a, b] = [newToken(), newToken()];
    expect(a.slice(9)).not.toBe(b.slice(9));
    expect(a.slice(9)).toMatch(/^[A-Za-z0-9_-]{34}$/);
  });

  it('secrets are 256 random bits with no time in them', () => {
    const secrets = many(1000, newSecret);
    for (const secret of secrets) expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(secrets).size).toBe(secrets.length);
    // No shared leading characters the way time-ordered tokens of one run have.
    expect(new Set(secrets.map((s) => s.slice(0, 4))).size).toBeGreaterThan(900);
  });
});
