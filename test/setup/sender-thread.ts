// vitest globalSetup: the webhook sender thread's entry (src/webhooks/delivery/sender-thread.ts)
// bundled into one JavaScript file for the run. Node cannot start a worker thread from TypeScript
// source, so without it a sandbox the tests start from src/ sends webhooks from the main thread, a
// path no user runs (senders.ts). The bundle's URL is provided to the tests as `senderThread`
// (test/types/provided-context.d.ts); test/helpers/test-sandbox.ts hands it to the sandboxes it starts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';

/** Bundles the thread entry into a temporary directory, removed when the run ends. */
export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'paysandbox-sender-thread-'));
  const outfile = join(dir, 'sender-thread.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('../../src/webhooks/delivery/sender-thread.ts', import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    // Every module in the bundle reads files from where its source lives (src/code-dir.ts: the
    // version in package.json, migrations): without this, import.meta.url is the bundle's own URL
    // in the temporary directory, and the thread dies reading a package.json next to it.
    define: { 'import.meta.url': JSON.stringify(new URL('../../src/code-dir.ts', import.meta.url).href) },
  });
  project.provide('senderThread', pathToFileURL(outfile).href);
  return () => rmSync(dir, { recursive: true, force: true });
}
