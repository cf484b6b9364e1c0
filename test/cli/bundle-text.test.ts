// dist/paysandbox.cjs, which the library and `sandbox start` run, is read as Latin-1 when the build
// found nothing outside ASCII in it (runtime/compiled-bundle.ts): the two loaders the build writes
// must say 'ascii' of that file alone. It is kept ASCII on purpose (scripts/bundle-cli.js): one
// character outside it makes V8 hold and parse the whole bundle as a two-byte string.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = join(import.meta.dirname, '../../dist');

describe('the bundle the library and sandbox start run', () => {
  it('holds nothing outside ASCII, and both loaders read it as such', () => {
    const bundle = readFileSync(join(DIST, 'paysandbox.cjs'), 'utf8');
    expect(bundle.match(/[^\x00-\x7f]/g) ?? []).toEqual([]);
    for (const loader of ['paysandbox.js', 'start.js'])
      expect(readFileSync(join(DIST, loader), 'utf8')).toMatch(
        /loadBundle\(new URL\('\.\/paysandbox\.cjs', import\.meta\.url\), '[0-9a-f]+', '\w+', 'ascii'\)/,
      );
  });
});
