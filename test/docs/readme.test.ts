// The README and then every docs page, run as written: the package is packed and installed into a
// fresh project, the sandbox is started the way a merchant starts it there (`npx sandbox start`,
// port 4010), and every shell example of the walk-through sections runs in order, then every shell
// example of each page in reading order, in the same project against the same sandbox. A sample
// answer on the page must have the keys of the real one, and the start banner must be the one the
// page shows.
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';
import { blocksIn, docBlocks } from './doc-blocks.js';
import { backgroundReady, runExamples } from './doc-examples.js';
import { DocRunner } from './doc-runner.js';
import { installPackedSandbox, type PackedProject } from './packed-install.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
/** The README sections a reader follows in order after the set-up. */
const WALK_THROUGH = ['Walk-through', 'Hosted checkout', 'The bearer payment API', 'Webhooks'];
/**
 * The docs pages in the order the README's table lists them, the S2S family first. docs/ci.md's
 * code examples run in test processes (test/library/) and its CI script in ci-script.test.ts; its
 * shell sessions run here, against a second sandbox of its own that it stops at its end.
 */
const PAGES = [
  's2s', 'encryption', 'refunds', 'payment-modes', 'payment-api', 'webhook-endpoints', 'idempotency', 'openapi',
  'checkout', 'webhooks', 'api-faults', 'disputes-and-settlements', 'ci', 'merchants', 'dashboard', 'reliability', 'security', 'decisions', 'errors', 'benchmarks',
  'webhook-audit',
];

let runner: DocRunner;
let project: PackedProject | undefined;

beforeAll(async () => {
  project = installPackedSandbox();
  runner = new DocRunner(project);
  await runner.runBlock('npx sandbox start');
  await backgroundReady(runner);
}, 120_000);

afterAll(async () => {
  await runner?.stop();
  // The packed tarball and the project (35 MB) are of this run only.
  if (project) rmSync(dirname(project.dir), { recursive: true, force: true });
});

/** The URL of every webhook delivery so far (from the control API: quicker than one more npx). */
async function deliveryUrls(): Promise<string[]> {
  const answer = await fetch('http://127.0.0.1:4010/_sandbox/deliveries?limit=1000');
  return ((await answer.json()) as { data: { url: string }[] }).data.map((delivery) => delivery.url);
}

/** Every webhook an example asked for went to the reader's own machine, never out to a network. */
async function deliveredLocallyOnly(): Promise<void> {
  const hosts = (await deliveryUrls()).map((url) => new URL(url).hostname);
  expect(hosts.filter((host) => host !== '127.0.0.1')).toEqual([]);
}

/**
 * docs/ci.md's sample snapshot has what the page's own `npx sandbox export > state.json` wrote:
 * the same top-level keys, format, version and schema_version, tables that exist, with their columns.
 */
function snapshotLikeExport(file: string): void {
  const sample = docBlocks(file).find((block) => block.section.startsWith('State snapshots') && block.lang === 'json')!;
  type Snapshot = { format: string; version: number; schema_version: number; tables: Record<string, { columns: string[] }> };
  const shown = JSON.parse(sample.text) as Snapshot;
  const real = JSON.parse(readFileSync(join(project!.dir, 'state.json'), 'utf8')) as Snapshot;
  expect(Object.keys(shown).sort()).toEqual(Object.keys(real).sort());
  expect({ format: shown.format, version: shown.version, schema_version: shown.schema_version }).toEqual({ format: real.format, version: real.version, schema_version: real.schema_version });
  for (const [table, { columns }] of Object.entries(shown.tables)) {
    expect(real.tables[table], `the sample's table ${table}`).toBeDefined();
    // An elided list (`["trans_id", "..."]`) shows the first columns only.
    const named = columns.filter((column) => column !== '...');
    expect(real.tables[table]!.columns.slice(0, named.length), `the columns of ${table}`).toEqual(named);
    if (!columns.includes('...')) expect(real.tables[table]!.columns).toEqual(columns);
  }
}

describe('README.md and docs/, run as written in a fresh project', () => {
  it('prints the start banner the README shows', async () => {
    const shown = docBlocks(README).find((block) => block.text.startsWith('paysandbox '))!;
    expect(shown, 'the README shows the banner').toBeDefined();
    const start = runner.background[0]!;
    await waitFor(() => start.stdout.includes('Listening on') || undefined, 'the banner');
    expect(start.stdout.trim()).toBe(shown.text.trim());
  });

  it('runs every shell example of the walk-through in order, and the samples have the real keys', async () => {
    await runExamples(runner, README, blocksIn(README, WALK_THROUGH));
    // The walk-through's receiver got the 3-D Secure payment's webhook, signed with the shown secret.
    const receiver = runner.background.find((entry) => /sandbox receive/.test(entry.command))!;
    await waitFor(() => /payment\.authorized .*signature valid/.test(receiver.output) || undefined, 'the webhook at the receiver');
    expect(receiver.output).not.toContain('INVALID');
    await deliveredLocallyOnly();
    expect(await deliveryUrls()).toContain('http://127.0.0.1:3000/webhooks');
  }, 180_000);

  for (const page of PAGES) {
    it(`runs every shell example of docs/${page}.md in order, after the walk-through`, async () => {
      const file = fileURLToPath(new URL(`../../docs/${page}.md`, import.meta.url));
      runner.newShell();
      // What a page starts in the background (docs/ci.md's own sandbox) stops with the page.
      const running = runner.background.length;
      try {
        await runExamples(runner, file, docBlocks(file));
      } finally {
        await runner.stop(running);
      }
      await deliveredLocallyOnly();
      if (page === 'ci') snapshotLikeExport(file);
    }, 120_000);
  }
});
