// The rules of doc-rules.ts over README.md and every page of docs/: no id from a past run in a
// command, a ready file removed before the sandbox that writes it starts, `npx sandbox` only where
// the page has said it needs paysandbox installed, `npx` only of packages known by name, how to
// install paysandbox before its first release wherever a page says `npx paysandbox`, and the
// README's table linking every page. Quick (text only), so the class of mistake is caught before the slow run of every example.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { npxContext, pageCommands, releaseInstall, staleIdLines, staleIds, staleReadyFiles, unknownNpxNames } from './doc-rules.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(`${ROOT}docs`)
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
/** Packages pages run with npx that this repository does not depend on, checked by hand. */
const KNOWN_NPX: string[] = [];

describe('the commands of README.md and docs/ run as pasted', () => {
  it.each(PAGES)('%s: no command uses an id from a past run or a placeholder', (page) => {
    expect(staleIds(pageCommands(`${ROOT}${page}`, page))).toEqual([]);
    expect(staleIdLines(`${ROOT}${page}`, page)).toEqual([]);
  });

  it.each(PAGES)('%s: each recipe with --ready-file removes the file before the sandbox starts', (page) => {
    expect(staleReadyFiles(pageCommands(`${ROOT}${page}`, page))).toEqual([]);
  });

  it.each(PAGES)('%s: says where `npx sandbox` works before it uses it, and runs no unknown npx package', (page) => {
    expect(npxContext(`${ROOT}${page}`, page)).toBeUndefined();
    expect(unknownNpxNames(`${ROOT}${page}`, page, KNOWN_NPX)).toEqual([]);
  });

  it.each(PAGES)('%s: says how to install paysandbox before its first release wherever it says `npx paysandbox`', (page) => {
    expect(releaseInstall(`${ROOT}${page}`, page)).toBeUndefined();
  });
});

describe("README.md's table of the docs", () => {
  it('links every page of docs/', () => {
    const readme = readFileSync(`${ROOT}README.md`, 'utf8');
    const table = readme.slice(readme.indexOf('## Documentation'));
    const linked = new Set([...table.matchAll(/\]\((docs\/[\w-]+\.md)(?:#[\w-]*)?\)/g)].map((match) => match[1]));
    expect(PAGES.filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
  });
});
