// docs/benchmarks.md is written by the full bench run: its tables, then bench/method.md as it is.
// Prose added to the doc alone is lost at the next full run (it was, once); it belongs in method.md.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

it('docs/benchmarks.md ends with bench/method.md, which the full bench run writes after its tables', () => {
  const doc = read('docs/benchmarks.md');
  const method = read('bench/method.md').trim();
  expect(method.startsWith('## How each figure is measured')).toBe(true);
  expect(doc.slice(doc.indexOf('## How each figure is measured')).trim()).toBe(method);
});
