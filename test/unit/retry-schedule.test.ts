import { describe, expect, it } from 'vitest';
import { nextRetryDelay, parseRetryProfile, RETRY_PROFILES } from '../../src/domain/retry-profile.js';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

describe('retry profiles (docs/decisions.md)', () => {
  it('dev waits 1, 2, 4, 8, 16, 32 s after the first try', () => {
    expect(RETRY_PROFILES.dev).toEqual([1 * S, 2 * S, 4 * S, 8 * S, 16 * S, 32 * S]);
  });

  it('realistic waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(RETRY_PROFILES.realistic).toEqual([5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 10 * H]);
  });

  it('none never retries', () => {
    expect(RETRY_PROFILES.none).toEqual([]);
    expect(nextRetryDelay(RETRY_PROFILES.none!, 1)).toBeUndefined();
  });
});

describe('parseRetryProfile', () => {
  it.each([
    ['dev', RETRY_PROFILES.dev],
    ['realistic', RETRY_PROFILES.realistic],
    ['none', []],
    ['1s,5s,1m', [1000, 5000, 60_000]],
    ['50ms,50ms,50ms', [50, 50, 50]],
    ['2h', [7_200_000]],
    ['1s, 2s', [1000, 2000]],
  ] as Array<[string, number[]]>)('%j -> %j', (text, waits) => {
    expect(parseRetryProfile(text)).toEqual(waits);
  });

  it.each([['bogus'], [''], ['1s,,2s'], ['0s'], ['1s,-2s'], ['Dev'], ['1s;2s']])('%j is refused', (text) => {
    expect(parseRetryProfile(text)).toBeUndefined();
  });
});

describe('nextRetryDelay', () => {
  const profile = [1000, 2000, 4000];

  it.each([
    [1, 1000],
    [2, 2000],
    [3, 4000],
  ])('after attempt %i waits %i ms', (attempt, wait) => {
    expect(nextRetryDelay(profile, attempt)).toBe(wait);
  });

  it('gives up after length + 1 attempts', () => {
    expect(nextRetryDelay(profile, 4)).toBeUndefined();
  });
});
