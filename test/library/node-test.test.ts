// The node:test suites of docs/library.md, run exactly as written: each code block is copied from
// the page into a file inside this package (so `import 'paysandbox'` resolves to the built dist/ by
// the package's own name) and run with `node --test`. Editing an example re-tests it.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The first ```js block after the heading `heading` of docs/library.md. */
function example(heading: string): string {
  const page = readFileSync(join(root, 'docs/library.md'), 'utf8');
  const at = page.indexOf(`${heading}\n`);
  if (at < 0) throw new Error(`docs/library.md has no heading "${heading}"`);
  const block = /```js\n([\s\S]*?)\n```/.exec(page.slice(at));
  if (!block) throw new Error(`docs/library.md has no \`\`\`js block under "${heading}"`);
  return block[1]!;
}

/** Runs a suite with `node --test` from a folder inside the package; its TAP output and exit code. */
async function runSuite(source: string): Promise<{ code: number | null; output: string }> {
  const dir = mkdtempSync(join(root, 'test/library/.ci-example-'));
  try {
    const file = join(dir, 'suite.mjs');
    writeFileSync(file, source);
    return await new Promise((resolve) => {
      execFile(process.execPath, ['--test', '--test-reporter=tap', file], { cwd: root, timeout: 60_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the node:test suites of docs/library.md pass as written against dist/', () => {
  it.each([
    ['## node:test', 2],
    ['## Asserting what your code sent', 2],
  ])('the suite under "%s"', async (heading, tests) => {
    expect(existsSync(`${root}dist/index.js`), 'dist/index.js is missing: run npm run build first').toBe(true);
    const { code, output } = await runSuite(example(heading));
    expect(output).toMatch(new RegExp(`^# pass ${tests}$`, 'm'));
    expect(output).toMatch(/^# fail 0$/m);
    expect(code, output).toBe(0);
  });
});
