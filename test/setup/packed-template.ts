// vitest globalSetup: a folder for this run's one packed install of the package. The first test
// that needs a merchant's project with paysandbox installed from its tarball (the docs, the packed
// package, the GitHub Action) packs and installs it there; every such test then copies that
// project instead of packing and installing again (test/docs/packed-install.ts). The folder is
// provided as `packedTemplate` (test/types/provided-context.d.ts). `npm test` makes several
// vitest runs at once (scripts/run-tests.js): it gives them one folder in PAYSANDBOX_PACKED_TEMPLATE,
// so they share one install too, and removes it when they have all ended.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/** The folder (empty: nothing is packed until a test asks), made here unless the runs share one; removed when this run ends if made here. */
export default function setup(project: TestProject): () => void {
  const shared = process.env.PAYSANDBOX_PACKED_TEMPLATE;
  const dir = shared || mkdtempSync(join(tmpdir(), 'paysandbox-packed-'));
  project.provide('packedTemplate', dir);
  return () => {
    if (!shared) rmSync(dir, { recursive: true, force: true });
  };
}
