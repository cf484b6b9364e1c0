// Runs test/library/jest-suite.ts, written for jest's globals only. jest itself is not installed
// (too heavy for one check); vitest's describe/it/beforeAll/afterAll/expect stand in for its
// globals, which have the same shape for everything the suite uses.
import * as vitest from 'vitest';

Object.assign(globalThis, {
  describe: vitest.describe,
  it: vitest.it,
  beforeAll: vitest.beforeAll,
  afterAll: vitest.afterAll,
  expect: vitest.expect,
});

await import('./jest-suite.js');
