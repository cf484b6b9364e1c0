// Where `sandbox start` parses HTTP: --front-thread on, off or auto (on with three cores or more),
// read by bin/sandbox.js before the configuration is (earlyFrontThreadSetting), then by the start.
import { availableParallelism } from 'node:os';
import { expect, it } from 'vitest';
import * as built from '../../dist/server/front/early-thread.js';
import { earlyFrontThreadSetting, frontThreadWanted } from '../../src/server/front/early-thread.js';

it.each([
  [['start'], {}, 'auto'],
  [['start', '--front-thread', 'off'], {}, 'off'],
  [['start', '--front-thread=on'], {}, 'on'],
  [['start'], { SANDBOX_FRONT_THREAD: 'off' }, 'off'],
  [['start', '--front-thread', 'on'], { SANDBOX_FRONT_THREAD: 'off' }, 'on'],
  [['start', '--front-thread', 'on', '--front-thread', 'off'], {}, 'off'],
  [['start', '--front-thread', 'sideways'], {}, 'auto'],
  [['start', '--front-thread'], {}, 'auto'],
] as const)('argv %j with %j reads as %s before the configuration does', (argv, env, setting) => {
  expect(earlyFrontThreadSetting(argv, env)).toBe(setting);
});

it('off is never a front thread, on always is when its compiled entry is there, auto asks for three cores', () => {
  expect(built.frontThreadAvailable(), 'npm run build first').toBe(true);
  expect(built.frontThreadWanted('off')).toBe(false);
  expect(built.frontThreadWanted('on')).toBe(true);
  expect(built.frontThreadWanted('auto')).toBe(availableParallelism() >= 3);
});

it('without its compiled entry (the TypeScript sources under vitest) there is no front thread, whatever the setting', () => {
  expect(frontThreadWanted('on')).toBe(false);
  expect(frontThreadWanted('auto')).toBe(false);
});
