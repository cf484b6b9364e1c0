// docs/containers.md's Node Testcontainers recipe, run as printed (the image name aside: the image
// this run built) against podman's Docker-compatible API (`podman system service`, Ryuk disabled:
// its container needs a registry). Where the tests run in a container (this machine has
// /.dockerenv, as a devcontainer or a CI job's container has), Testcontainers reaches mapped ports
// at the engine's gateway, not localhost: the recipe allows that host for the control plane, and
// without SANDBOX_ALLOWED_HOSTS its wait on /_sandbox/health failed here (403 host_not_allowed).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { blocksIn } from '../docs/doc-blocks.js';
import { waitFor } from '../helpers/wait-for.js';
import { CONTAINERS_CONF, ENGINE, ROOT, run } from './podman.js';

const IMAGE = inject('containerImage');
const SKIP = inject('containerSkip');

/** The Node recipe of docs/containers.md, its image this run's, its "your tests" line a check that prints what it saw. */
function recipe(): string {
  const [block] = blocksIn(join(ROOT, 'docs/containers.md'), ['Testcontainers']).filter((b) => b.lang === 'js');
  expect(block, 'the Node recipe of docs/containers.md').toBeDefined();
  const text = block!.text;
  expect(text).toContain("new GenericContainer('paysandbox')");
  const yourTests = /^\/\/ \.\.\. your tests against url.*$/m;
  expect(text).toMatch(yourTests);
  // What the comment says: the API at url, and the CLI with SANDBOX_URL=url and SANDBOX_CONTROL_TOKEN=test.
  const check = [
    `const paid = await fetch(url + '/api/s2s', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });`,
    `const { execFileSync } = await import('node:child_process');`,
    `const health = execFileSync(process.execPath, [${JSON.stringify(join(ROOT, 'bin/sandbox.js'))}, 'health'], { env: { ...process.env, SANDBOX_URL: url, SANDBOX_CONTROL_TOKEN: 'test' }, encoding: 'utf8' });`,
    `console.log(JSON.stringify({ url, api: paid.status, health: health.trim() }));`,
  ].join('\n');
  return text.replace("new GenericContainer('paysandbox')", `new GenericContainer(${JSON.stringify(IMAGE)})`).replace(yourTests, check);
}

describe.skipIf(SKIP !== '')("the Node Testcontainers recipe, against podman's Docker API", () => {
  const dir = mkdtempSync(join(tmpdir(), 'paysandbox-testcontainers-'));
  const socket = join(dir, 'podman.sock');
  let service: ChildProcess;

  beforeAll(async () => {
    // What the engine flags do for `podman run`, for the containers the API creates.
    writeFileSync(join(dir, 'containers.conf'), CONTAINERS_CONF);
    service = spawn('podman', [...ENGINE, 'system', 'service', '--time=0', `unix://${socket}`], {
      env: { ...process.env, CONTAINERS_CONF: join(dir, 'containers.conf') },
      stdio: 'ignore',
    });
    await waitFor(
      async () => (await run('curl', ['-sf', '--unix-socket', socket, 'http://d/_ping'])).stdout === 'OK',
      "podman's API",
      60_000,
      200,
    );
  });

  afterAll(() => {
    service?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts the image, waits on its health, and the API and the CLI reach it at the mapped port', async () => {
    // Inside the repository, so `import 'testcontainers'` resolves to its devDependency.
    const artifacts = join(ROOT, 'test-artifacts');
    mkdirSync(artifacts, { recursive: true });
    const file = join(artifacts, `testcontainers-recipe-${process.pid}.mjs`);
    writeFileSync(file, recipe());
    try {
      const ran = await run(process.execPath, [file], 170_000, {
        ...process.env,
        DOCKER_HOST: `unix://${socket}`,
        TESTCONTAINERS_RYUK_DISABLED: 'true',
      });
      expect(ran.code, `${ran.stdout}\n${ran.stderr}`).toBe(0);
      const seen = JSON.parse(ran.stdout.trim().split('\n').at(-1)!) as { url: string; api: number; health: string };
      expect(seen.url).toMatch(/^http:\/\/[^/]+:\d+$/);
      // The API answers (a 4xx naming the missing fields: the request reached the sandbox).
      expect(seen.api).toBe(400);
      expect(seen.health).toMatch(/^ok: paysandbox .* answers at http:\/\//);
    } finally {
      rmSync(file, { force: true });
    }
  });
});
