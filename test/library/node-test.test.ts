// The node:test example of docs/library.md, run exactly as written: the code block is copied from the
// page into a file inside this package (so `import 'paysandbox'` resolves to the built dist/ by
// the package's own name) and run with `node --test`. Editing the example re-tests it.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The first ```js block after the "## node:test" heading of docs/library.md. */
function nodeTestExample(): string {
  const page = readFileSync(join(root, 'docs/library.md'), 'utf8');
  const section = page.slice(page.indexOf('## node:test\n'));
  const block = /```js\n([\s\S]*?)\n```/.exec(section);
  if (!block) throw new Error('docs/library.md has no ```js block under "## node:test"');
  return block[1]!;
}

describe('the node:test example of docs/library.md', () => {
  it('passes as written against dist/', async () => {
    expect(existsSync(`${root}dist/index.js`), 'dist/index.js is missing: run npm run build first').toBe(true);
    const dir = mkdtempSync(join(root, 'test/library/.ci-example-'));
    try {
      const file = join(dir, 'checkout.mjs');
      writeFileSync(file, nodeTestExample());
      const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
        execFile(process.execPath, ['--test', '--test-reporter=tap', file], { cwd: root, timeout: 60_000 }, (err, stdout, stderr) => {
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
        });
      });
      expect(output).toMatch(/^# pass 2$/m);
      expect(output).toMatch(/^# fail 0$/m);
      expect(code, output).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
