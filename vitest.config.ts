import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Vite 8 transforms with oxc (an esbuild option here is ignored with a warning).
  oxc: { jsx: { runtime: 'automatic', importSource: 'hono/jsx' } },
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    exclude: ['test/example-merchant/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The JSON report lets .ci/run print one plain "N passed, N failed" line for both runs.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-artifacts/vitest-main.json' },
  },
});
