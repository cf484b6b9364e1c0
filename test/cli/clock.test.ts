// `sandbox clock` shows sandbox time; `sandbox clock advance` needs a unit and never goes back.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { startTestServer } from '../helpers/test-sandbox.js';
import { runCli } from '../helpers/cli-harness.js';

let sandbox: RunningServer;
beforeAll(async () => {
  sandbox = await startTestServer();
});
afterAll(() => sandbox.close());

const cli = (...args: string[]) => runCli([...args, '--url', sandbox.url]);

it('sandbox clock prints sandbox time, and how far ahead it is after an advance', async () => {
  expect((await cli('clock')).out).toMatch(/^sandbox time is \d{4}-\d\d-\d\dT[\d:.]+Z \(the wall clock\)$/);
  const advanced = await cli('clock', 'advance', '2d');
  expect(advanced.error).toBeUndefined();
  expect(advanced.out).toMatch(/^sandbox time is now \S+Z, 2d ahead of the wall clock \(0 timed jobs ran\)$/);
  expect((await cli('clock')).out).toMatch(/\(2d ahead of the wall clock\)$/);
  const json = JSON.parse((await cli('clock', '--json')).out);
  expect(json.offset_ms).toBeGreaterThanOrEqual(2 * 86_400_000);
  expect(Math.abs(Date.parse(json.now) - sandbox.clock.now())).toBeLessThan(5000);
});

it.each([
  ['15', 'duration "15" has no unit; add a unit: 15s, 15m, 15h or 15d'],
  ['-1h', 'the sandbox clock only moves forward; give duration as a positive amount such as "15m", not "-1h"'],
])('sandbox clock advance %s fails with one line and moves nothing', async (duration, message) => {
  const before = sandbox.clock.offset();
  const run = await cli('clock', 'advance', duration);
  expect(run.error).toBe(message);
  expect(sandbox.clock.offset()).toBeLessThan(before + 1000);
});
