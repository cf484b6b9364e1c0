// The README, run as written: the package is packed and installed into a fresh project, the
// sandbox is started the way a merchant starts it there (`npx sandbox start`, port 4010), and every
// shell example of the walk-through sections runs in order. A sample answer on the page must have
// the keys of the real one, and the start banner must be the one the page shows.
import { createConnection } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';
import { blocksIn, docBlocks } from './doc-blocks.js';
import { DocRunner } from './doc-runner.js';
import { installPackedSandbox } from './packed-install.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
/** The README sections a reader follows in order after the set-up. */
const WALK_THROUGH = ['Walk-through', 'Hosted checkout', 'The bearer payment API', 'Webhooks'];

let runner: DocRunner;

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Waits until each background command that listens on a port accepts connections. */
async function backgroundReady(): Promise<void> {
  for (const entry of runner.background) {
    const port = Number(/--port\s+(\d+)/.exec(entry.command)?.[1] ?? (/sandbox start/.test(entry.command) ? 4010 : NaN));
    if (Number.isNaN(port)) continue;
    await waitFor(async () => {
      if (entry.child.exitCode !== null) throw new Error(`\`${entry.command}\` exited with ${entry.child.exitCode}: ${entry.output}`);
      return (await portOpen(port)) || undefined;
    }, `\`${entry.command}\` listening on ${port}`, 20_000);
  }
}

beforeAll(async () => {
  runner = new DocRunner(installPackedSandbox());
  await runner.runBlock('npx sandbox start');
  await backgroundReady();
}, 120_000);

afterAll(async () => {
  await runner?.stop();
});

describe('README.md, run as written in a fresh project', () => {
  it('prints the start banner the README shows', async () => {
    const shown = docBlocks(README).find((block) => block.text.startsWith('paysandbox '))!;
    expect(shown, 'the README shows the banner').toBeDefined();
    const start = runner.background[0]!;
    await waitFor(() => start.stdout.includes('Listening on') || undefined, 'the banner');
    expect(start.stdout.trim()).toBe(shown.text.trim());
  });

  it('runs every shell example of the walk-through in order, and the samples have the real keys', async () => {
    let last: Record<string, unknown> | undefined;
    for (const block of blocksIn(README, WALK_THROUGH)) {
      const where = `README.md line ${block.line} (${block.section})`;
      if (block.lang === 'json') {
        expect(last, `${where}: a sample answer with no command before it`).toBeDefined();
        const sample = JSON.parse(block.text) as Record<string, unknown>;
        expect(Object.keys(sample).sort(), `${where}: the sample's keys`).toEqual(Object.keys(last!).sort());
        runner.learnSample(sample, last!);
        continue;
      }
      if (block.lang !== 'sh') continue;
      for (const run of await runner.runBlock(block.text)) {
        expect(run.code, `${where}: \`${run.command}\` exited ${run.code}: ${run.stdout}${run.stderr}`).toBe(0);
        if (!run.stdout.trimStart().startsWith('{')) continue;
        last = JSON.parse(run.stdout) as Record<string, unknown>;
        expect(last.error, `${where}: \`${run.command}\` answered an error`).toBeUndefined();
      }
      await backgroundReady();
    }
    // The walk-through's receiver got the 3-D Secure payment's webhook, signed with the shown secret.
    const receiver = runner.background.find((entry) => /sandbox receive/.test(entry.command))!;
    await waitFor(() => /payment\.authorized .*signature valid/.test(receiver.output) || undefined, 'the webhook at the receiver');
    expect(receiver.output).not.toContain('INVALID');
    // Every webhook an example asked for went to the reader's own machine, never out to a network.
    const list = await runner.run('npx sandbox webhooks list --json --limit 100');
    const urls = (JSON.parse(list.stdout) as { url: string }[]).map((delivery) => new URL(delivery.url).hostname);
    expect(urls.length).toBeGreaterThan(0);
    expect(urls.filter((host) => host !== '127.0.0.1')).toEqual([]);
  }, 180_000);
});

