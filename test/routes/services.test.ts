// One facade: routes, pages, the control API, the CLI and startSandbox() reach state only through
// service methods (test/unit/layers.test.ts reads the source for ways around them). The services of
// a built sandbox are only that: no handle on the dependencies they are built from.
import { expect, it } from 'vitest';
import { createTestSandbox } from '../helpers/test-sandbox.js';

it('createServices() hands out services, not the dependencies they are built from', () => {
  const sandbox = createTestSandbox();
  try {
    expect(Object.keys(sandbox.services)).not.toContain('deps');
    expect(Object.keys(sandbox.services)).not.toContain('store');
  } finally {
    sandbox.close();
  }
});
