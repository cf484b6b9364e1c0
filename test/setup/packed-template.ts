// vitest globalSetup: a folder for this run's one packed install of the package. The first test
// that needs a merchant's project with paysandbox installed from its tarball (the docs, the packed
// package, the GitHub Action) packs and installs it there; every such test then copies that
// project instead of packing and installing again (test/docs/packed-install.ts). The folder is
// provided as `packedTemplate` (test/types/provided-context.d.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/** Makes the folder (empty: nothing is packed until a test asks); removes it when the run ends. */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'paysandbox-packed-'));
  project.provide('packedTemplate', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
