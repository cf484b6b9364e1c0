// A fresh merchant project with paysandbox installed from the tarball `npm pack` makes, the way a
// merchant installs it, so the docs' examples run against what users get (dist/, bin/, fixtures/
// and the files list) and not against this repository's source tree. A run packs and installs
// once (test/setup/packed-template.ts gives the folder; `npm test` fills it before its runs start,
// scripts/packed-template.js); each project is a copy of that install.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { makePackedTemplate, packAndInstall } from '../../scripts/packed-template.js';
import { processesIn } from '../helpers/bash-script.js';
import { waitFor } from '../helpers/wait-for.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The time a hook that installs the packed package may take: packing and installing take half a
 * minute on a quiet machine, several on a busy one, and a test file may wait for the run's install
 * another file is making.
 */
export const PACKED_INSTALL_MS = 300_000;

/** A temporary project with paysandbox as a devDependency. */
export interface PackedProject {
  dir: string;
  /** process.env as a reader's terminal has it: no node_modules/.bin on PATH, no colours. */
  env: NodeJS.ProcessEnv;
}

/**
 * The folder of this run's packed install (the tarball and the project `shop` in it), made by
 * `npm test` or by the first test that asks while the others wait, or undefined when the run gave
 * no folder for it.
 */
async function runTemplate(): Promise<string | undefined> {
  const root = inject('packedTemplate');
  if (!root) return undefined;
  if (!makePackedTemplate(root)) {
    const outcome = await waitFor(
      () =>
        (existsSync(join(root, 'ready')) && 'ready') || (existsSync(join(root, 'failed')) && readFileSync(join(root, 'failed'), 'utf8')),
      "this run's packed install",
      PACKED_INSTALL_MS,
      100,
    );
    if (outcome !== 'ready') throw new Error(`this run's packed install failed: ${outcome}`);
  }
  return root;
}

/** A new project with the packed package installed: a copy of this run's install (`cp -a` keeps the links of node_modules/.bin), or its own. */
export async function installPackedSandbox(): Promise<PackedProject> {
  const base = mkdtempSync(join(tmpdir(), 'paysandbox-docs-'));
  const dir = join(base, 'shop');
  const template = await runTemplate();
  if (template === undefined) packAndInstall(base, dir);
  else {
    // The tarball beside the project too: its package.json and lock name it by a relative path.
    for (const file of readdirSync(template)) if (file.endsWith('.tgz')) copyFileSync(join(template, file), join(base, file));
    execFileSync('cp', ['-a', join(template, 'shop'), dir]);
  }
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
export async function installIntegrationProject(suite: string): Promise<PackedProject> {
  const project = await installPackedSandbox();
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
