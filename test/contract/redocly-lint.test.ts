// Redocly CLI's recommended rules (redocly.yaml at the repository root) over the document a sandbox
// serves: no error and no warning, so the tools merchants load the document into trust it.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { createTestSandbox } from '../helpers/test-sandbox.js';

const REDOCLY = fileURLToPath(new URL('../../node_modules/.bin/redocly', import.meta.url));
const CONFIG = fileURLToPath(new URL('../../redocly.yaml', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'paysandbox-redocly-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('redocly lint finds 0 errors and 0 warnings in the served /openapi.json', async () => {
  const sandbox = createTestSandbox();
  const documentPath = join(dir, 'openapi.json');
  writeFileSync(documentPath, (await sandbox.request('GET', '/openapi.json')).text);
  sandbox.close();
  const run = await promisify(execFile)(process.execPath, [REDOCLY, 'lint', documentPath, '--config', CONFIG, '--format', 'json'], {
    maxBuffer: 64 * 1024 * 1024,
  }).catch((err: { stdout: string; stderr: string }) => err);
  const report = JSON.parse(run.stdout) as {
    totals: { errors: number; warnings: number };
    problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>;
  };
  const problems = report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
  expect(problems, run.stderr).toEqual([]);
  expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
});
