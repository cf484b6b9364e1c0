import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadBundle } from '../../src/runtime/compiled-bundle.js';

let dir: string;
let cacheDir: string;
const saved = { cache: process.env.NODE_COMPILE_CACHE, off: process.env.NODE_DISABLE_COMPILE_CACHE };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'compiled-bundle-'));
  cacheDir = join(dir, 'cache');
  process.env.NODE_COMPILE_CACHE = cacheDir;
  delete process.env.NODE_DISABLE_COMPILE_CACHE;
});

afterEach(() => {
  for (const [name, value] of [
    ['NODE_COMPILE_CACHE', saved.cache],
    ['NODE_DISABLE_COMPILE_CACHE', saved.off],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

let copies = 0;

/**
 * A CommonJS bundle as esbuild writes one: functions worth caching, an export, require() of a
 * builtin. A new file name each time: V8 keeps scripts it compiled in memory by source and name, and
 * the cache this test asserts on is the file, as a new process meets it.
 */
function bundle(answer: number): URL {
  const file = join(dir, `lib-${++copies}.cjs`);
  writeFileSync(
    file,
    `const { join } = require('node:path');
function add(a, b) { return a + b; }
module.exports = { answer: add(${answer - 1}, 1), where: join(__dirname, 'x'), load: () => typeof require('node:os').tmpdir };
`,
  );
  return pathToFileURL(file);
}

const cacheFiles = () => readdirSync(cacheDir).filter((name) => name.endsWith('.bin'));

describe('loadBundle', () => {
  it('runs the bundle as require() would, then runs it from the cache its first run saved', () => {
    const file = bundle(42);
    const first = loadBundle(file, 'build-1', 'test');
    expect(first.exports.answer).toBe(42);
    expect(first.exports.where).toBe(join(dir, 'x'));
    // require() from inside the bundle, called later, as the bundle's lazily loaded code does.
    expect((first.exports.load as () => string)()).toBe('function');
    expect(first.fromCache).toBe(false);
    expect(cacheFiles()).toEqual([]);
    first.saveCache();
    expect(cacheFiles()).toHaveLength(1);
    // The folder and the file are the user's alone: a cache is code the next process runs.
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheDir, cacheFiles()[0])).mode & 0o777).toBe(0o600);

    const second = loadBundle(bundle(42), 'build-1', 'test');
    expect(second.fromCache).toBe(true);
    expect(second.exports.answer).toBe(42);
    expect((second.exports.load as () => string)()).toBe('function');
    second.saveCache();
    expect(readdirSync(cacheDir)).toHaveLength(1);
  });

  it('reads a bundle the build found all ASCII as Latin-1, which only an ASCII file survives', () => {
    const ascii = join(dir, `text-${++copies}.cjs`);
    writeFileSync(ascii, "module.exports = { word: 'caf\\u00e9' };\n");
    const first = loadBundle(pathToFileURL(ascii), 'build-1', 'test', 'ascii');
    expect(first.exports.word).toBe('caf\u00e9');
    first.saveCache();
    expect(loadBundle(pathToFileURL(ascii), 'build-1', 'test', 'ascii').fromCache).toBe(true);
    // Why the build says 'ascii' only of a file with nothing outside ASCII: Latin-1 reads UTF-8's two bytes of é as two characters.
    const utf8 = join(dir, `text-${++copies}.cjs`);
    writeFileSync(utf8, "module.exports = { word: 'caf\u00e9' };\n");
    expect(loadBundle(pathToFileURL(utf8), 'build-2', 'test', 'utf8').exports.word).toBe('caf\u00e9');
    expect(loadBundle(pathToFileURL(utf8), 'build-3', 'test', 'ascii').exports.word).toBe('caf\u00c3\u00a9');
  });

  it('never offers one build the cache of another, even of the same length', () => {
    loadBundle(bundle(42), 'build-1', 'test').saveCache();
    // Same length, other code: V8 would only compare the length, so the build name keeps them apart.
    const other = bundle(43);
    const loaded = loadBundle(other, 'build-2', 'test');
    expect(loaded.fromCache).toBe(false);
    expect(loaded.exports.answer).toBe(43);
    loaded.saveCache();
    expect(cacheFiles()).toHaveLength(2);
  });

  it('compiles the source when the cache file is damaged, and replaces it', () => {
    loadBundle(bundle(42), 'build-1', 'test').saveCache();
    const [name] = cacheFiles();
    writeFileSync(join(cacheDir, name), Buffer.alloc(2048, 7));
    const loaded = loadBundle(bundle(42), 'build-1', 'test');
    expect(loaded.fromCache).toBe(false);
    expect(loaded.exports.answer).toBe(42);
    loaded.saveCache();
    expect(loadBundle(bundle(42), 'build-1', 'test').fromCache).toBe(true);
  });

  it('neither reads nor writes a cache folder that another user could write to', () => {
    mkdirSync(cacheDir, { mode: 0o700 });
    chmodSync(cacheDir, 0o777);
    const loaded = loadBundle(bundle(42), 'build-1', 'test');
    loaded.saveCache();
    expect(loaded.exports.answer).toBe(42);
    expect(cacheFiles()).toEqual([]);
  });

  it('writes nothing with NODE_DISABLE_COMPILE_CACHE set', () => {
    process.env.NODE_DISABLE_COMPILE_CACHE = '1';
    const loaded = loadBundle(bundle(42), 'build-1', 'test');
    loaded.saveCache();
    expect(loaded.exports.answer).toBe(42);
    expect(() => readdirSync(cacheDir)).toThrow(/ENOENT/);
  });

  it('goes on without a cache when it cannot be written, and leaves no partial file', () => {
    loadBundle(bundle(42), 'build-1', 'test').saveCache();
    const [name] = cacheFiles();
    // Elsewhere, the cache's name is taken by a folder that is not empty: the rename into place
    // fails, as a write to a full disk would.
    const blocked = join(dir, 'blocked');
    mkdirSync(join(blocked, name, 'inside'), { recursive: true });
    process.env.NODE_COMPILE_CACHE = blocked;
    const loaded = loadBundle(bundle(42), 'build-1', 'test');
    expect(loaded.fromCache).toBe(false);
    expect(() => loaded.saveCache()).not.toThrow();
    expect(loaded.exports.answer).toBe(42);
    expect(readdirSync(blocked)).toEqual([name]);
  });

  it('keeps the four newest caches of a role: each build writes its own, and older builds give way', () => {
    for (const build of ['build-1', 'build-2', 'build-3', 'build-4', 'build-5']) loadBundle(bundle(42), build, 'test').saveCache();
    loadBundle(bundle(42), 'build-1', 'other').saveCache();
    const roles = readdirSync(cacheDir).map((name) => name.split('-')[1]);
    expect(roles.filter((role) => role === 'test')).toHaveLength(4);
    expect(roles.filter((role) => role === 'other')).toHaveLength(1);
    // The newest build's cache is among those kept: its next run loads from it.
    expect(loadBundle(bundle(42), 'build-5', 'test').fromCache).toBe(true);
  });

  it('removes the partial file of a process killed while it wrote its cache, once it is a minute old, and leaves a fresh one', () => {
    mkdirSync(cacheDir, { mode: 0o700 });
    const killed = join(cacheDir, 'paysandbox-test-build-0-node20-x64.bin.4242.partial');
    const writing = join(cacheDir, 'paysandbox-test-build-0-node20-x64.bin.4343.partial');
    writeFileSync(killed, 'half');
    writeFileSync(writing, 'half');
    const old = new Date(Date.now() - 120_000);
    utimesSync(killed, old, old);
    loadBundle(bundle(42), 'build-1', 'test').saveCache();
    expect(existsSync(killed)).toBe(false);
    expect(existsSync(writing)).toBe(true);
  });
});
