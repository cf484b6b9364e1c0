import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/domain/duration.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['50ms', 50],
    ['1s', 1000],
    ['30s', 30_000],
    ['1.5s', 1500],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['1h30m', 5_400_000],
    ['1m30s', 90_000],
    ['1s500ms', 1500],
    ['5', 5000],
    ['0.25', 250],
    [' 10s ', 10_000],
    ['0s', 0],
  ])('%j -> %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([[''], ['soon'], ['10 s'], ['-1s'], ['1w'], ['s'], ['1.s'], ['10S'], ['1h 30m'], ['1e3']])('%j is not a duration', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('formatDuration', () => {
  it.each([
    [50, '50ms'],
    [999, '999ms'],
    [1000, '1s'],
    [90_000, '1m30s'],
    [900_000, '15m'],
    [5_400_000, '1h30m'],
    [86_400_000, '1d'],
    [36_000_000, '10h'],
  ])('%i ms -> %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it.each([[50], [1000], [90_000], [5_400_000], [86_401_000]])('%i ms reads back through parseDuration', (ms) => {
    expect(parseDuration(formatDuration(ms))).toBe(ms);
  });
});
