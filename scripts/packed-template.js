// The one packed install of a test run: this checkout packed with `npm pack` and installed from
// its tarball into a merchant's project, the way a merchant installs it. The docs' examples, the
// packed-package test and the GitHub Action's run against copies of it (test/docs/packed-install.ts).
// scripts/run-tests.js makes it before its runs start, on a quiet machine (13 s here), rather than
// inside them: made by a test at the start of `npm test`, beside the other runs' first imports, it
// took 3 minutes of the docs run on 2 cores.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NATIVE = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';

/** @param {string[]} args @param {string} cwd */
function npm(args, cwd) {
  return execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
}

/**
 * Packs this repository (its built dist/) into `base` and installs the tarball into a new project
 * at `dir`. Install scripts are skipped and better-sqlite3's binding is copied from this checkout:
 * the same version compiled for the same Node, which saves the 90 s compile `npm ci` already proved works.
 * @param {string} base
 * @param {string} dir
 */
export function packAndInstall(base, dir) {
  if (!existsSync(join(ROOT, 'dist/sandbox.js'))) throw new Error('dist/ is missing: run npm run build first');
  const tarball = npm(['pack', '--ignore-scripts', '--silent', '--pack-destination', base], ROOT).trim().split('\n').pop();
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'shop', version: '1.0.0', private: true, type: 'module' }, null, 2));
  npm(['install', '--save-dev', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', join(base, String(tarball))], dir);
  /** @param {string} file */
  const version = (file) => JSON.parse(readFileSync(file, 'utf8')).version;
  const manifest = 'node_modules/better-sqlite3/package.json';
  if (version(join(ROOT, manifest)) !== version(join(dir, manifest)))
    throw new Error('the packed install resolved another better-sqlite3 than this checkout: run npm ci');
  mkdirSync(join(dir, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
  copyFileSync(join(ROOT, NATIVE), join(dir, NATIVE));
}

/**
 * Makes the run's packed install in `root` (the tarball and the project `shop`) unless somebody
 * else took its `lock` first: true when this call made it. `ready` or `failed` (with the error)
 * tells those who wait how it went; a failure is thrown too.
 * @param {string} root
 */
export function makePackedTemplate(root) {
  try {
    mkdirSync(join(root, 'lock'));
  } catch {
    return false;
  }
  try {
    packAndInstall(root, join(root, 'shop'));
  } catch (err) {
    writeFileSync(join(root, 'failed'), /** @type {Error} */ (err).message);
    throw err;
  }
  writeFileSync(join(root, 'ready'), '');
  return true;
}
