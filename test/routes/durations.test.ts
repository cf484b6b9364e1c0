// Durations are bounded everywhere (clock advance, fault delays, settlement pay-after): a huge one
// is a 400 naming the field, and the sandbox keeps answering afterwards (it used to 500 for good).
import { afterAll, expect, it } from 'vitest';
import { MAX_DURATION_MS, parseDuration } from '../../src/domain/duration.js';
import { createTestSandbox } from '../helpers/test-sandbox.js';

const sandbox = createTestSandbox();
afterAll(() => sandbox.close());

it('parseDuration refuses anything longer than 3650 days', () => {
  expect(parseDuration('3650d')).toBe(MAX_DURATION_MS);
  expect(parseDuration('3651d')).toBeUndefined();
  expect(parseDuration('99999999999d')).toBeUndefined();
});

it.each(['99999999999d', '3651d', '0s', '-5m', 'soon'])('clock advance %j is a 400 naming duration with a fix', async (duration) => {
  const res = await sandbox.request('POST', '/_sandbox/clock/advance', { duration });
  expect(res.status).toBe(400);
  expect(res.json.error.param).toBe('duration');
  expect(res.json.error.message).toContain('such as "15m"');
});

it.each([
  ['15', 'duration "15" has no unit; add a unit: 15s, 15m, 15h or 15d'],
  ['-1h', 'the sandbox clock only moves forward'],
])('clock advance %j is refused with %j, and sandbox time does not move', async (duration, message) => {
  const before = (await sandbox.request('GET', '/_sandbox/clock')).json;
  const res = await sandbox.request('POST', '/_sandbox/clock/advance', { duration });
  expect(res.status).toBe(400);
  expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'duration' });
  expect(res.json.error.message).toContain(message);
  expect((await sandbox.request('GET', '/_sandbox/clock')).json).toEqual(before);
});

it('GET /_sandbox/clock answers sandbox time and the offset; an advance answers the same', async () => {
  const before = (await sandbox.request('GET', '/_sandbox/clock')).json;
  const moved = await sandbox.request('POST', '/_sandbox/clock/advance', { duration: '1h30m' });
  expect(moved.json).toMatchObject({
    now: new Date(Date.parse(before.now) + 5_400_000).toISOString(),
    offset_ms: before.offset_ms + 5_400_000,
    jobs_run: 0,
  });
  expect((await sandbox.request('GET', '/_sandbox/clock')).json).toEqual({
    now: moved.json.now,
    offset_ms: moved.json.offset_ms,
    offset: moved.json.offset,
  });
});

it('advances that would pass the year 9999 are refused, and the sandbox still answers', async () => {
  let last = 200;
  for (let i = 0; i < 3000 && last === 200; i++)
    last = (await sandbox.request('POST', '/_sandbox/clock/advance', { duration: '3650d' })).status;
  expect(last).toBe(400);
  expect((await sandbox.request('GET', '/_sandbox/health')).status).toBe(200);
});

it('a fault delay longer than the limit is refused', async () => {
  const res = await sandbox.request('POST', '/_sandbox/faults', { spec: 'delay=99999999999d' });
  expect(res.status).toBe(400);
  expect((await sandbox.request('GET', '/_sandbox/deliveries')).status).toBe(200);
});
