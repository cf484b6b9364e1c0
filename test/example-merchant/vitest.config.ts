// The worked example's own test run: `npm run test:example` (and the second half of `npm test`;
// the main vitest.config.ts excludes this folder). The example imports 'paysandbox' by name,
// exactly as a merchant's project does; inside this repository Node resolves that name to the
// package itself (the "exports" self-reference of package.json), so the example runs against the
// built dist/ like an installed copy would. Run `npm run build` after changing src/.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', 'json'],
    outputFile: { json: '../../test-artifacts/vitest-example.json' },
  },
});
