// Runs test/library/node-test.mjs with `node --test` against the built dist/, so CI proves the
// published entry works under node:test (CI builds before it tests).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('startSandbox under node:test', () => {
  it('the node:test suite passes against dist/', async () => {
    expect(existsSync(`${root}dist/index.js`), 'dist/index.js is missing: run npm run build first').toBe(true);
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      execFile(process.execPath, ['--test', '--test-reporter=tap', 'test/library/node-test.mjs'], { cwd: root, timeout: 60_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
      });
    });
    expect(output).toMatch(/^# pass 3$/m);
    expect(output).toMatch(/^# fail 0$/m);
    expect(code, output).toBe(0);
  });
});
