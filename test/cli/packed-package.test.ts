// The package as `npm pack` makes it and a merchant installs it: its two bins (`paysandbox`, which
// `npx paysandbox` finds from anywhere, and `sandbox` inside the project) run the same program,
// `npx --yes ./paysandbox-X.tgz` runs the tarball itself (an absolute path does not, as the
// README says), its LICENSE ships, the library loads with `import` and with `require` (and from its
// code cache the second time), and its
// type declarations compile in a project with `strict` and `skipLibCheck: false`, where types
// the package's own .d.ts files import must be installed too.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPackedSandbox, PACKED_INSTALL_MS, removePackedProject, type PackedProject } from '../docs/packed-install.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let project: PackedProject;
beforeAll(async () => {
  project = await installPackedSandbox();
}, PACKED_INSTALL_MS);
afterAll(() => project && removePackedProject(project));

/** Runs `file args` in the project (or `where`); its exit code and output (a kill at `timeoutMs` says so in stderr). */
function run(
  file: string,
  args: string[],
  timeoutMs = 60_000,
  where: { cwd: string; env: NodeJS.ProcessEnv } = { cwd: project.dir, env: project.env },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(file, args, { ...where, timeout: timeoutMs }, (err, stdout, stderr) => {
      const killed = err?.killed ? `\n(killed after ${timeoutMs} ms)` : '';
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr: stderr + killed });
    }),
  );
}

describe('the bins', () => {
  it('paysandbox and sandbox are the same program, each naming itself in its usage and errors', async () => {
    for (const name of ['paysandbox', 'sandbox']) {
      const bin = join(project.dir, 'node_modules/.bin', name);
      expect((await run(bin, ['--version'])).stdout).toBe(`${VERSION}\n`);
      const help = await run(bin, ['--help']);
      expect(help.stdout).toMatch(new RegExp(`^Usage: ${name} \\[options\\] \\[command\\]\\n\\npaysandbox: the payment gateway sandbox`));
      expect(help.stdout).toContain('start [options]');
      const wrong = await run(bin, ['nosuch']);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toBe(`${name}: unknown command 'nosuch' (see ${name} --help)\n`);
    }
  });

  it('npx paysandbox runs the installed package under that name', async () => {
    const npx = await run('npx', ['--offline', 'paysandbox', '--help']);
    expect(npx.stdout).toMatch(/^Usage: paysandbox \[options\] \[command\]\n/);
  });
});

describe('npx with the tarball, as the README says before the first release', () => {
  it('runs ./paysandbox-X.tgz from the folder that holds it; an absolute path is run as a command and fails', async () => {
    const elsewhere = join(dirname(project.dir), 'elsewhere');
    mkdirSync(elsewhere);
    copyFileSync(join(dirname(project.dir), `paysandbox-${VERSION}.tgz`), join(elsewhere, `paysandbox-${VERSION}.tgz`));
    // From npm's cache (the packed install filled it), without better-sqlite3's compile: --version opens no database.
    const env = { ...project.env, npm_config_offline: 'true', npm_config_ignore_scripts: 'true', npm_config_update_notifier: 'false' };
    const npx = (spec: string) => run('npx', ['--yes', spec, '--version'], 120_000, { cwd: elsewhere, env });
    try {
      const relative = await npx(`./paysandbox-${VERSION}.tgz`);
      expect(relative.stdout + relative.stderr).toBe(`${VERSION}\n`);
      const absolute = await npx(join(elsewhere, `paysandbox-${VERSION}.tgz`));
      expect(absolute.code).not.toBe(0);
      expect(absolute.stderr).toContain('Permission denied');
    } finally {
      // npx installed the tarball under ~/.npm/_npx: that copy is of this run only.
      const cache = join(homedir(), '.npm/_npx');
      for (const entry of existsSync(cache) ? readdirSync(cache) : []) {
        const manifest = join(cache, entry, 'package.json');
        if (existsSync(manifest) && readFileSync(manifest, 'utf8').includes(elsewhere))
          rmSync(join(cache, entry), { recursive: true, force: true });
      }
    }
  }, 240_000);
});

describe('the files', () => {
  it('ship the MIT LICENSE that package.json names', () => {
    const installed = join(project.dir, 'node_modules/paysandbox');
    expect((JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { license: string }).license).toBe('MIT');
    const license = readFileSync(join(installed, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} paysandbox contributors\n/);
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
  });
});

describe('the library from ES modules and from CommonJS', () => {
  /** A script that loads paysandbox its way (`load`), starts a sandbox, pays once and prints what it saw. */
  const script = (load: string) => `${load}
const sandbox = await startSandbox();
const res = await fetch(sandbox.url + '/v1/payments', { method: 'POST', headers: { authorization: 'Bearer ' + sandbox.credentials.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ amount: 1050, currency: 'EUR' }) });
console.log((await res.json()).status, typeof verifyWebhook, Object.keys(TEST_CARDS).length > 0);
await sandbox.close();
`;

  it.each([
    ['import', 'use.mjs', script("import { startSandbox, verifyWebhook, TEST_CARDS } from 'paysandbox';")],
    // Node 20.19+ requires an ES module (the package's require condition); a CommonJS project has no top-level await.
    ['require', 'use.cjs', `const { startSandbox, verifyWebhook, TEST_CARDS } = require('paysandbox');\n(async () => {${script('')}})();`],
  ])(
    '%s: startSandbox() runs, with the same exports',
    async (how, file, text) => {
      writeFileSync(join(project.dir, file), text);
      // The library saves its code cache after the first startSandbox() of a build, and the next
      // process runs from it: the same answers both times.
      const cache = join(project.dir, `compile-cache-${how}`);
      const env = { ...project.env, NODE_COMPILE_CACHE: cache };
      const written: string[] = [];
      for (const runNumber of [1, 2]) {
        const ran = await run(process.execPath, [file], 60_000, { cwd: project.dir, env });
        expect(ran.stderr).toBe('');
        expect(ran.stdout).toBe('authorized function true\n');
        expect(ran.code).toBe(0);
        const files = readdirSync(cache).filter((name) => /^paysandbox-library-[0-9a-f]{32}-node[\d.]+-\w+\.bin$/.test(name));
        expect(files, `after run ${runNumber}`).toHaveLength(1);
        const { ino, mtimeMs } = statSync(join(cache, files[0]));
        written.push(`${ino} ${mtimeMs}`);
      }
      // A run that found the cache unfit would have written it again.
      expect(written[1]).toBe(written[0]);
    },
    60_000,
  );
});

describe('the type declarations', () => {
  it('compile under strict with skipLibCheck false in a project using startSandbox() and its handle', async () => {
    // The merchant's own @types/node (the package's declarations name Node's types).
    if (!existsSync(join(project.dir, 'node_modules/@types/node'))) {
      mkdirSync(join(project.dir, 'node_modules/@types'), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules/@types/node'), join(project.dir, 'node_modules/@types/node'));
    }
    writeFileSync(
      join(project.dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        files: ['use-sandbox.ts'],
      }),
    );
    writeFileSync(
      join(project.dir, 'use-sandbox.ts'),
      `import { startSandbox, verifyWebhook, TEST_CARDS, type EventType, type SandboxHandle, type SandboxDelivery } from 'paysandbox';

const sandbox: SandboxHandle = await startSandbox({ retry: 'none', db: ':memory:' });
const merchant = sandbox.createMerchant({ name: 'worker 1', currency: 'EUR' });
const terNO: number = merchant.terNO;
const challenge: { state: string; redirectUrl: string } = await sandbox.authenticate('pay_x', 'approve');
const delivery: SandboxDelivery = await sandbox.waitForDelivery({ event: 'payment.authorized', timeoutMs: 1000, match: (d) => d.status === 'succeeded' });
const event: EventType = 'refund.succeeded';
// @ts-expect-error waitForDelivery takes the event names only: a typo is a compile error
await sandbox.waitForDelivery({ event: 'payment.authorised' });
const all: SandboxDelivery[] = sandbox.deliveries();
const now: number = Date.parse((await sandbox.clock.advance('15m')).now) - sandbox.clock.now();
const scripted: string[] = await sandbox.scriptToken('tok_x', ['approve', 'insufficient_funds']);
const audit = await sandbox.auditWebhooks('http://127.0.0.1:3000/webhooks', { timeoutMs: 2000 });
const passed: boolean = audit.passed;
await sandbox.reset({ merchant: merchant.merchantId });
await sandbox.deleteMerchant(merchant.merchantId);
console.log(event, sandbox.url, sandbox.credentials.apiKey, terNO, challenge.state, delivery.id, all.length, now, passed, typeof verifyWebhook, Object.keys(TEST_CARDS).length);
await sandbox.close();
`,
    );
    const tsc = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.'], 170_000);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
    // Checking every declaration (hono's, zod's, Node's) takes tsc half a minute on a busy machine.
  }, 180_000);
});
