// A fresh merchant project with paysandbox installed from the tarball `npm pack` makes, the way a
// merchant installs it, so the docs' examples run against what users get (dist/, bin/, fixtures/
// and the files list) and not against this repository's source tree.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processesIn } from '../helpers/bash-script.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NATIVE = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';

/** A temporary project with paysandbox as a devDependency. */
export interface PackedProject {
  dir: string;
  /** process.env as a reader's terminal has it: no node_modules/.bin on PATH, no colours. */
  env: NodeJS.ProcessEnv;
}

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
}

/**
 * Packs this repository (its built dist/) and installs the tarball into a new project. Install
 * scripts are skipped and better-sqlite3's binding is copied from this checkout: the same version
 * compiled for the same Node, which saves the 90 s compile `npm ci` already proved works.
 */
export function installPackedSandbox(): PackedProject {
  if (!existsSync(join(ROOT, 'dist/sandbox.js'))) throw new Error('dist/ is missing: run npm run build first');
  const base = mkdtempSync(join(tmpdir(), 'paysandbox-docs-'));
  const tarball = npm(['pack', '--ignore-scripts', '--silent', '--pack-destination', base], ROOT).trim().split('\n').pop()!;
  const dir = join(base, 'shop');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'shop', version: '1.0.0', private: true, type: 'module' }, null, 2));
  npm(['install', '--save-dev', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', join(base, tarball)], dir);
  const wanted = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  const version = join('node_modules/better-sqlite3/package.json');
  if (wanted(join(ROOT, version)) !== wanted(join(dir, version)))
    throw new Error('the packed install resolved another better-sqlite3 than this checkout: run npm ci');
  mkdirSync(join(dir, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
  copyFileSync(join(ROOT, NATIVE), join(dir, NATIVE));
  // A bare `sandbox` fails here as in the reader's terminal; `npx sandbox` finds the project's bin.
  const PATH = (process.env.PATH ?? '')
    .split(':')
    .filter((entry) => !entry.endsWith('node_modules/.bin'))
    .join(':');
  const env: NodeJS.ProcessEnv = { ...process.env, PATH, NO_COLOR: '1', FORCE_COLOR: '0' };
  for (const name of Object.keys(env)) if (name.startsWith('SANDBOX_')) delete env[name];
  return { dir, env };
}

/**
 * A packed install whose `npm run test:integration` runs `suite` (an ES module), as the CI recipes
 * of docs/ci.md expect of a merchant's project.
 */
export function installIntegrationProject(suite: string): PackedProject {
  const project = installPackedSandbox();
  const manifest = join(project.dir, 'package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
  writeFileSync(manifest, JSON.stringify({ ...pkg, scripts: { 'test:integration': 'node integration.mjs' } }, null, 2));
  writeFileSync(join(project.dir, 'integration.mjs'), suite);
  return project;
}

/** Removes a packed project; whatever still runs in it is killed first, so a failing test leaves no orphan. */
export function removePackedProject(project: PackedProject): void {
  for (const { pid } of processesIn(project.dir)) process.kill(pid, 'SIGKILL');
  rmSync(dirname(project.dir), { recursive: true, force: true });
}

/**
 * Makes a package of this checkout's node_modules (a devDependency, e.g. `@stoplight/prism-cli`)
 * available to `npx <package>` in the project, as the copy npx would fetch from the registry:
 * the docs test has no network. `bin` is its command and the file it runs.
 */
export function linkPackage(project: PackedProject, name: string, bin: { command: string; file: string }): void {
  const target = join(project.dir, 'node_modules', name);
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules', name), target);
  symlinkSync(join('..', name, bin.file), join(project.dir, 'node_modules/.bin', bin.command));
}
