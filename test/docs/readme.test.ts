// The README and then every docs page, run as written: the package is packed and installed into a
// fresh project, the sandbox is started the way a merchant starts it there (`npx sandbox start`,
// port 4010), and every shell example of the walk-through sections runs in order, then every shell
// example of each page in reading order, in the same project against the same sandbox, exactly as
// printed (no id is filled in: a page takes each id from the command before). A sample answer on
// the page must be the real one modulo ids and times (doc-examples.ts), and a page must leave no
// webhook endpoint, fault rule, merchant or scenario entry behind, nor make the walk-through's
// receiver see a signature it cannot verify. Then every GitHub Actions workflow the pages show runs,
// step by step as a runner runs it, in the same project (workflows.ts).
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';
import { api } from '../helpers/http.js';
import { blocksIn, docBlocks } from './doc-blocks.js';
import { backgroundReady, runExamples } from './doc-examples.js';
import { DocRunner } from './doc-runner.js';
import { leftBehind, removeLeftBehind, standing } from './leftovers.js';
import { installPackedSandbox, linkPackage, PACKED_INSTALL_MS, type PackedProject } from './packed-install.js';
import { ACTIONS, satisfied, STANDS_IN_FOR, writeStandIns } from './workflow-stand-ins.js';
import { documentedWorkflows, endJob, runJob } from './workflows.js';
import { processesIn } from '../helpers/bash-script.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = `${ROOT}README.md`;
const docsPage = (page: string) => fileURLToPath(new URL(`../../docs/${page}.md`, import.meta.url));
const SANDBOX = 'http://127.0.0.1:4010';
/** The README sections a reader follows in order after the set-up. */
const WALK_THROUGH = ['A payment with 3-D Secure'];
/**
 * Every docs page, in the order the README's table lists them, the S2S family first; cli.md (the
 * workbench tour, whose retry-failed must find no failed delivery of another page) before the
 * pages that leave failed ones. docs/library.md's code examples run in test processes
 * (test/library/), and the scripts of ci.md and any-language.md in ci-script.test.ts and
 * ci-languages.test.ts; the shell sessions of ci.md and snapshots.md run here, each against a
 * second sandbox of its own that it stops at its end.
 */
const PAGES = [
  's2s',
  'cli',
  'encryption',
  'refunds',
  'payment-modes',
  'payment-api',
  'checkout',
  'idempotency',
  'openapi',
  'webhooks',
  'webhook-endpoints',
  'webhook-audit',
  'api-faults',
  'disputes-and-settlements',
  'recurring',
  'library',
  'ci',
  'any-language',
  'merchants',
  'scenarios',
  'snapshots',
  'journal',
  'tracing',
  'github-action',
  'mcp',
  'example-merchant',
  'containers',
  'dashboard',
  'https',
  'reliability',
  'security',
  'benchmarks',
  'decisions',
  'errors',
];

let runner: DocRunner;
let project: PackedProject | undefined;

beforeAll(async () => {
  project = await installPackedSandbox();
  // docs/openapi.md runs `npx @stoplight/prism-cli`: the copy npx would fetch.
  linkPackage(project, '@stoplight/prism-cli', { command: 'prism', file: 'dist/index.js' });
  runner = new DocRunner(project);
  await runner.runBlock('npx sandbox start');
  await backgroundReady(runner);
}, PACKED_INSTALL_MS);

afterAll(async () => {
  await runner?.stop();
  // The packed tarball and the project (35 MB) are of this run only.
  if (project) rmSync(dirname(project.dir), { recursive: true, force: true });
});

/** The walk-through's webhook receiver on port 3000. */
function receiver(): DocRunner['background'][number] | undefined {
  return runner.background.find((entry) => /sandbox receive --port 3000/.test(entry.command));
}

/** The URL of every webhook delivery so far (from the control API: quicker than one more npx). */
async function deliveryUrls(): Promise<string[]> {
  const answer = await api(SANDBOX).get('/_sandbox/deliveries?limit=1000');
  return (answer.json as { data: { url: string }[] }).data.map((delivery) => delivery.url);
}

/** Every webhook an example asked for went to the reader's own machine, never out to a network. */
async function deliveredLocallyOnly(): Promise<void> {
  const hosts = (await deliveryUrls()).map((url) => new URL(url).hostname);
  expect(hosts.filter((host) => host !== '127.0.0.1')).toEqual([]);
}

/**
 * docs/snapshots.md's sample snapshot has what the page's own `npx sandbox export > state.json` wrote:
 * the same top-level keys, format, version and schema_version, tables that exist, with their columns.
 */
function snapshotLikeExport(file: string): void {
  const sample = docBlocks(file).find((block) => block.section.startsWith('The snapshot document') && block.lang === 'json')!;
  type Snapshot = { format: string; version: number; schema_version: number; tables: Record<string, { columns: string[] }> };
  const shown = JSON.parse(sample.text) as Snapshot;
  const real = JSON.parse(readFileSync(join(project!.dir, 'state.json'), 'utf8')) as Snapshot;
  expect(Object.keys(shown).sort()).toEqual(Object.keys(real).sort());
  expect({ format: shown.format, version: shown.version, schema_version: shown.schema_version }).toEqual({
    format: real.format,
    version: real.version,
    schema_version: real.schema_version,
  });
  for (const [table, { columns }] of Object.entries(shown.tables)) {
    expect(real.tables[table], `the sample's table ${table}`).toBeDefined();
    // An elided list (`["trans_id", "..."]`) shows the first columns only.
    const named = columns.filter((column) => column !== '...');
    expect(real.tables[table]!.columns.slice(0, named.length), `the columns of ${table}`).toEqual(named);
    if (!columns.includes('...')) expect(real.tables[table]!.columns).toEqual(columns);
  }
}

describe('README.md and docs/, run as written in a fresh project', () => {
  it('runs every page of docs/', () => {
    const pages = readdirSync(`${ROOT}docs`).flatMap((name) => (name.endsWith('.md') ? [name.slice(0, -3)] : []));
    expect([...PAGES].sort()).toEqual(pages.sort());
  });

  it('prints the start banner the README shows', async () => {
    const shown = docBlocks(README).find((block) => block.text.startsWith('paysandbox '))!;
    expect(shown, 'the README shows the banner').toBeDefined();
    const start = runner.background[0]!;
    // npx and the start take many seconds when the run shares the cores with the rest of the suite.
    await waitFor(() => start.stdout.includes('Listening on') || undefined, 'the banner', 60_000);
    expect(start.stdout.trim()).toBe(shown.text.trim());
  }, 90_000);

  it('runs every shell example of the walk-through in order, and the samples are the real answers', async () => {
    const before = await standing(SANDBOX);
    await runExamples(runner, README, blocksIn(README, WALK_THROUGH));
    // The walk-through's receiver got the 3-D Secure payment's webhook, signed with the shown secret.
    await waitFor(
      () => /payment\.authorized .*signature valid/.test(receiver()!.output) || undefined,
      'the webhook at the receiver',
      60_000,
    );
    expect(receiver()!.output).not.toContain('INVALID');
    await deliveredLocallyOnly();
    expect(await deliveryUrls()).toContain('http://127.0.0.1:3000/webhooks');
    expect(leftBehind(before, await standing(SANDBOX)), 'README.md left these in the sandbox').toEqual([]);
  }, 180_000);

  for (const page of PAGES) {
    it(`runs every shell example of docs/${page}.md in order, after the walk-through, and leaves nothing behind`, async () => {
      const file = docsPage(page);
      // `npx sandbox` runs the project's bin as npx would, without npm's second of start-up per
      // command (doc-runner.ts, npx-stand-in.test.ts); the walk-through above ran through npm itself.
      runner.newShell({ npx: 'stand-in' });
      const before = await standing(SANDBOX);
      const heard = receiver()?.output.length ?? 0;
      // What a page starts in the background (the own sandbox of ci.md or snapshots.md) stops with the page.
      const running = runner.background.length;
      try {
        await runExamples(runner, file, docBlocks(file));
      } catch (err) {
        // The page's own failure is what the run reports: a cleanup that fails too (the sandbox
        // gone) must not replace it, and what stays is named by the next page's leftover check.
        await removeLeftBehind(before, SANDBOX).catch(() => undefined);
        throw err;
      } finally {
        await runner.stop(running);
      }
      await deliveredLocallyOnly();
      if (page === 'snapshots') snapshotLikeExport(file);
      expect(leftBehind(before, await standing(SANDBOX)), `docs/${page}.md left these in the sandbox`).toEqual([]);
      const invalid = (receiver()?.output ?? '')
        .slice(heard)
        .split('\n')
        .filter((line) => line.includes('INVALID'));
      expect(invalid, `while docs/${page}.md ran, the walk-through's receiver got webhooks it could not verify`).toEqual([]);
    }, 300_000);
  }
});

describe('the GitHub Actions workflows of README.md and docs/, step by step in the same project', () => {
  const workflows = [README, ...PAGES.map(docsPage)].flatMap((file) => documentedWorkflows(file, relative(ROOT, file)));

  beforeAll(async () => {
    // The pages' sandbox and receiver stop: a workflow starts what it needs, on the ports it names.
    await runner.stop();
    writeStandIns(project!.dir, docsPage('any-language'));
  });

  it('stand-ins cover every workflow a page shows', () => {
    expect(
      workflows
        .map((workflow) => `${workflow.where}: ${workflow.path || 'no "# .github/workflows/NAME.yml" comment'}`)
        .filter((line) => !STANDS_IN_FOR.some((path) => line.endsWith(path))),
    ).toEqual([]);
  });

  for (const workflow of workflows) {
    for (const job of Object.keys(workflow.jobs)) {
      it(`${workflow.where} (${workflow.path}), job ${job}: every step succeeds and the sandbox it started is stopped`, async () => {
        // A command that does not use the URL the job's own sandbox got would reach 4010 on a runner,
        // where nothing listens: here it gets a port where nothing listens, not another test's sandbox.
        const env = { ...project!.env, SANDBOX_URL: 'http://127.0.0.1:9' };
        const { steps, groups } = await runJob(workflow, job, {
          dir: project!.dir,
          env,
          satisfied: satisfied(project!.dir),
          actions: ACTIONS,
        });
        try {
          const report = steps.map((step) => `${step.result}: ${step.step}\n${step.output}`).join('\n');
          expect(
            steps.filter((step) => step.result === 'failure').map((step) => step.step),
            report,
          ).toEqual([]);
          // The job stopped its sandbox itself, with `sandbox stop` or the post step of the Action.
          // `sandbox stop` returns once the sandbox has exited; a wrapper that started it (npm exec,
          // npx) exits on its own a moment later, which a loaded machine can stretch: polled for.
          if (steps.some((step) => /sandbox stop/.test(step.step) || step.step.startsWith('Post '))) {
            const left = () => processesIn(project!.dir).filter((running) => /sandbox(\.js)? start/.test(running.command));
            await waitFor(() => left().length === 0, 'what started the sandbox to exit', 10_000).catch(() => undefined);
            expect(left(), report).toEqual([]);
          }
        } finally {
          endJob(groups);
        }
      }, 120_000);
    }
  }
});
