// Loads the package's CommonJS bundle (dist/paysandbox.cjs) with a V8 code cache, so neither a test
// suite's `import('paysandbox')` nor `sandbox start` parses the bundle or compiles the functions its
// start runs, from their second run on. Node 20 keeps no code cache for ES modules
// (`module.enableCompileCache()` came in Node 22), but `vm.Script` takes and makes one for a script.
// The cache is a file per bundle build, Node version and role, in a folder only this user can write;
// V8 checks it against the source and flags too and falls back to compiling when it does not fit.
// docs/library.md says where it lives and how to turn it off.
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

/** A loaded bundle: its exports, and the cache to write once the code that matters has run. */
export interface CompiledBundle {
  exports: Record<string, unknown>;
  /** Whether V8 took this run's code from the cache (false on a build's first run, or with caching off). */
  fromCache: boolean;
  /** Writes the code cache if this run had none that fit; later calls do nothing. */
  saveCache(): void;
}

/**
 * Runs `file` (a CommonJS bundle) as Node would `require()` it, from its code cache when one fits.
 * `build` names the bundle's contents (a hash made when it was built): V8 itself checks only the
 * source's length, so a cache of another build of the same length must never be offered to it.
 * `role` names who runs it (the library, `sandbox start`): each compiles other parts of the bundle,
 * under other V8 flags, so each keeps its own cache. `text` says how to read the file: 'ascii' when the
 * build found nothing outside ASCII in it, which is read as Latin-1 (the same characters, without
 * UTF-8's decoding: 2.2 MB read in 4.2 ms instead of 7.3, medians here), 'utf8' otherwise.
 */
export function loadBundle(file: URL, build: string, role: string, text: 'ascii' | 'utf8' = 'utf8'): CompiledBundle {
  const path = fileURLToPath(file);
  const cacheFile = cachePath(build, role);
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile);
  const source = readFileSync(path, text === 'ascii' ? 'latin1' : 'utf8');
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: path,
    cachedData,
    // No importModuleDynamically: the bundle holds no import() (scripts/bundle-cli.js), as a script
    // run from its cache loses that callback on Node 20.
  });
  const module = { exports: {} as Record<string, unknown> };
  script.runInThisContext()(module.exports, createRequire(path), module, path, dirname(path));
  const fromCache = cachedData !== undefined && script.cachedDataRejected === false;
  let pending = cacheFile !== undefined && !fromCache;
  return {
    exports: module.exports,
    fromCache,
    saveCache() {
      if (!pending || cacheFile === undefined) return;
      pending = false;
      writeCache(cacheFile, script.createCachedData());
      pruneCaches(cacheFile, role);
    },
  };
}

/**
 * The cache file for this build and Node; undefined when caching is off or the folder is not safe to
 * read. V8 flags are not in the name: V8 rejects a cache made under other flags, and this run writes its own.
 */
function cachePath(build: string, role: string): string | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const uid = process.getuid?.();
  const dir = process.env.NODE_COMPILE_CACHE || join(tmpdir(), `paysandbox-compile-cache${uid === undefined ? '' : `-${uid}`}`);
  if (!ownFolder(dir, uid)) return undefined;
  return join(dir, `paysandbox-${role}-${build}-node${process.version.slice(1)}-${process.arch}.bin`);
}

/**
 * Makes the folder if need be and says whether it is ours alone: a cache is code this process runs,
 * so one that another user could have written (a shared /tmp) is never read.
 */
function ownFolder(dir: string, uid: number | undefined): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(dir);
    if (!stat.isDirectory()) return false;
    return uid === undefined || (stat.uid === uid && (stat.mode & 0o022) === 0);
  } catch {
    return false;
  }
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Written beside and renamed into place, so a process starting meanwhile reads a whole cache or none. */
function writeCache(file: string, data: Buffer): void {
  const partial = `${file}.${process.pid}.partial`;
  try {
    writeFileSync(partial, data, { mode: 0o600 });
    renameSync(partial, file);
  } catch {
    // A full disk or a folder gone read-only: this run goes without, and the next one tries again.
    try {
      rmSync(partial, { force: true });
    } catch {
      // Nothing of it was written.
    }
  }
}

/** How many caches of one role are kept: every build writes its own, and two projects may each use another version. */
const KEPT_PER_ROLE = 4;
/** A partial file this old was left by a process killed while it wrote (a write takes milliseconds). */
const PARTIAL_LEFT_MS = 60_000;

/**
 * Removes the oldest caches of `role` past KEPT_PER_ROLE (other builds'), never `kept`, the one just
 * written, and the partial files of processes killed while writing theirs.
 */
function pruneCaches(kept: string, role: string): void {
  const dir = dirname(kept);
  try {
    const files = readdirSync(dir).map((name) => ({ name, path: join(dir, name), mtimeMs: statSync(join(dir, name)).mtimeMs }));
    const others = files
      .filter((file) => file.name.startsWith(`paysandbox-${role}-`) && file.name.endsWith('.bin') && file.path !== kept)
      .sort((a, b) => b.mtimeMs - a.mtimeMs);
    const left = files.filter((file) => file.name.endsWith('.partial') && Date.now() - file.mtimeMs > PARTIAL_LEFT_MS);
    for (const old of [...others.slice(KEPT_PER_ROLE - 1), ...left]) rmSync(old.path, { force: true });
  } catch {
    // Another process pruned the same files meanwhile, or the folder went away: the next save tries again.
  }
}
