// A repeated storage-fault line is written once per window, and the next one says how many were left out.
import { expect, it } from 'vitest';
import { silentLogger } from '../../src/runtime/logger.js';
import { ThrottledLog } from '../../src/runtime/throttled-log.js';

it('writes a kind of line once per window and counts the repeats it left out', () => {
  const lines: string[] = [];
  let now = 0;
  const log = new ThrottledLog({ ...silentLogger, error: (line) => void lines.push(line) }, 30_000, () => now);
  for (; now < 29_000; now += 100) log.error('claim', 'could not claim: disk full');
  log.error('read', 'could not read');
  expect(lines).toEqual(['could not claim: disk full', 'could not read']);
  now = 30_000;
  log.error('claim', 'could not claim: disk full');
  expect(lines[2]).toBe('could not claim: disk full (289 more like it in the last 30 s were not logged)');
  now = 61_000;
  log.error('claim', 'could not claim: disk full');
  expect(lines[3]).toBe('could not claim: disk full');
});
