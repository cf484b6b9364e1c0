// bin/sandbox.js as npm links it: run through its own #! line (npx sandbox), with the same node
// flags as `npm start`, so a user's sandbox and the benchmarked one share their memory settings.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, startCliSandbox } from '../helpers/cli-sandbox.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const PACKAGE = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8'));
const shebang = readFileSync(BIN, 'utf8').split('\n')[0]!;
const flagsOf = (line: string) => line.split(/\s+/).filter((word) => word.startsWith('--'));

describe('bin/sandbox.js', () => {
  it('runs through its own #! line, as npx sandbox runs it', async () => {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(BIN, ['--version'], { timeout: 20_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
    );
    expect(out.trim()).toBe(PACKAGE.version);
  });

  it('starts node with a 2 MB young generation, a 1 GiB heap, one V8 helper thread and no pretenuring, the same flags npm start and the container pass', () => {
    expect(shebang).toMatch(/^#!\/usr\/bin\/env -S node /);
    expect(flagsOf(shebang)).toEqual([
      '--max-semi-space-size=2',
      '--max-old-space-size=1024',
      '--v8-pool-size=1',
      '--no-allocation-site-pretenuring',
    ]);
    expect(flagsOf(PACKAGE.scripts.start)).toEqual(flagsOf(shebang));
    // The image's entrypoint and the start that makes its code cache (a cache is kept only for the flags it was made under).
    const containerfile = readFileSync(fileURLToPath(new URL('../../Containerfile', import.meta.url)), 'utf8');
    const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(containerfile)?.[1] ?? '[]') as string[];
    expect(entrypoint.filter((word) => word.startsWith('--'))).toEqual(flagsOf(shebang));
    expect(flagsOf(/^RUN node (.*?) \/app\/bin\/sandbox\.js /m.exec(containerfile)?.[1] ?? '')).toEqual(flagsOf(shebang));
  });

  it('loads code split out of the bundle when a page first needs it (the QR library of a QR payment page)', async () => {
    const sandbox = await startCliSandbox(['--db', ':memory:', '--quiet'], { shebang: true });
    try {
      const created = await fetch(`${sandbox.url}/api/s2s`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          s2sBody({ mop: 'QRINTENT', bill_currency: 'INR', ccno: undefined, ccvv: undefined, month: undefined, year: undefined }),
        ),
      }).then((res) => res.json() as Promise<{ status: string; authurl: string }>);
      expect(created.status).toBe('Pending');
      const page = await fetch(created.authurl);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<div class="qr" role="img" aria-label="[^"]+"><svg [^>]*viewBox=/);
    } finally {
      await sandbox.stop();
    }
  });

  it("runs the next start from the code cache the first one wrote, though each start changes V8's tier-up once it listens", async () => {
    // A cache is checked against the V8 flags it was made under: written after the tier-up changed,
    // the next start (which loads it before) would find it unfit and compile the bundle again.
    const cacheDir = mkdtempSync(join(tmpdir(), 'paysandbox-cache-'));
    const env = { NODE_COMPILE_CACHE: cacheDir };
    const cacheFile = () => readdirSync(cacheDir).find((name) => name.startsWith('paysandbox-start-') && name.endsWith('.bin'));
    try {
      const first = await startCliSandbox(['--db', ':memory:', '--quiet'], { shebang: true, env });
      const name = await waitFor(cacheFile, "the first start's code cache").finally(() => first.stop());
      const written = statSync(join(cacheDir, name));

      const second = await startCliSandbox(['--db', ':memory:', '--quiet'], { shebang: true, env });
      try {
        // The cache is saved, if at all, on the turn after the Listening line: before this answer.
        expect((await fetch(`${second.url}/_sandbox/health`)).status).toBe(200);
        const now = statSync(join(cacheDir, name));
        // A start that found the cache unfit would have renamed a new file into its place.
        expect({ ino: now.ino, mtimeMs: now.mtimeMs }).toEqual({ ino: written.ino, mtimeMs: written.mtimeMs });
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
