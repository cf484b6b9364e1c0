// The package as `npm pack` makes it and a merchant installs it: its two bins (`paysandbox`, which
// `npx paysandbox` finds from anywhere, and `sandbox` inside the project) run the same program,
// its LICENSE ships, and its type declarations compile in a project with `strict` and
// `skipLibCheck: false`, where types the package's own .d.ts files import must be installed too.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPackedSandbox, removePackedProject, type PackedProject } from '../docs/packed-install.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let project: PackedProject;
beforeAll(() => {
  project = installPackedSandbox();
}, 120_000);
afterAll(() => project && removePackedProject(project));

/** Runs `file args` in the project; its exit code and output. */
function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(file, args, { cwd: project.dir, env: project.env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
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

describe('the files', () => {
  it('ship the MIT LICENSE that package.json names', () => {
    const installed = join(project.dir, 'node_modules/paysandbox');
    expect((JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { license: string }).license).toBe('MIT');
    const license = readFileSync(join(installed, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} paysandbox contributors\n/);
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
  });
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
      `import { startSandbox, verifyWebhook, TEST_CARDS, type SandboxHandle, type SandboxDelivery } from 'paysandbox';

const sandbox: SandboxHandle = await startSandbox({ retry: 'none', db: ':memory:' });
const merchant = sandbox.createMerchant({ name: 'worker 1', currency: 'EUR' });
const terNO: number = merchant.terNO;
const challenge: { state: string; redirectUrl: string } = await sandbox.authenticate('pay_x', 'approve');
const delivery: SandboxDelivery = await sandbox.waitForDelivery({ event: 'payment.authorized', timeoutMs: 1000, match: (d) => d.status === 'succeeded' });
const all: SandboxDelivery[] = sandbox.deliveries();
const now: number = Date.parse((await sandbox.clock.advance('15m')).now) - sandbox.clock.now();
const scripted: string[] = await sandbox.scriptToken('tok_x', ['approve', 'insufficient_funds']);
const audit = await sandbox.auditWebhooks('http://127.0.0.1:3000/webhooks', { timeoutMs: 2000 });
const passed: boolean = audit.passed;
await sandbox.reset({ merchant: merchant.merchantId });
await sandbox.deleteMerchant(merchant.merchantId);
console.log(sandbox.url, sandbox.credentials.apiKey, terNO, challenge.state, delivery.id, all.length, now, passed, typeof verifyWebhook, Object.keys(TEST_CARDS).length);
await sandbox.close();
`,
    );
    const tsc = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.']);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
    // Checking every declaration (hono's, zod's, Node's) takes tsc half a minute on a busy machine.
  }, 180_000);
});
