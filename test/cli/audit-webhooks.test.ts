// `sandbox audit-webhooks`: the table and the exit code, --json, --junit, --url (the merchant's secret
// and real events from a running sandbox) and bad flags, against handlers on 127.0.0.1.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/index.js';
import { runCli } from '../helpers/cli-harness.js';
import { runBuiltCli } from '../helpers/cli-sandbox.js';
import { carefulHandler, startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { CREDS, startTestServer } from '../helpers/test-sandbox.js';
import { api } from '../helpers/http.js';

let receiver: FakeMerchant | undefined;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-webhooks-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('sandbox audit-webhooks', () => {
  it('prints a table of the cases and exits 1 when a must-pass case fails (a naive handler takes a forged signature)', async () => {
    receiver = await startFakeMerchant();
    const run = await runCli(['audit-webhooks', '--to', `${receiver.url}/webhooks`]);
    expect(run.exitCode).toBe(1);
    const lines = run.out.split('\n');
    expect(lines[0]).toBe(
      `auditing ${receiver.url}/webhooks: plain signatures in X-Sandbox-* headers, 5000 ms limit, events made for the audit (merchant mer_sandbox)`,
    );
    expect(lines[2]).toMatch(/^case\s+level\s+result\s+reason$/);
    expect(run.out).toMatch(/valid signed event\s+must-pass\s+pass\s+answered 200 in \d+ ms/);
    expect(run.out).toMatch(
      /bad signature\s+must-pass\s+FAIL\s+answered 200 in \d+ ms; a request whose X-Sandbox-Signature does not verify must be refused with a 4xx/,
    );
    expect(run.out).toMatch(/body that does not round-trip\s+must-pass\s+pass\s+answered 200 in \d+ ms/);
    expect(run.out).toMatch(/stale timestamp\s+must-pass\s+skip\s+plain signatures do not cover the timestamp/);
    expect(lines.at(-1)).toBe('FAILED: 2 must-pass cases failed (bad signature, tampered body); advice followed: 3 of 3');
  });

  it('exits 0 for a careful handler; --json prints the structured result', async () => {
    receiver = await startFakeMerchant({ answer: carefulHandler('plain', CREDS.secret).answer });
    const run = await runCli(['audit-webhooks', '--to', `${receiver.url}/webhooks`, '--json']);
    expect(run.exitCode).toBe(0);
    const result = JSON.parse(run.out);
    expect(result).toMatchObject({
      url: `${receiver.url}/webhooks`,
      passed: true,
      signatureMode: 'plain',
      source: 'synthetic',
      merchantId: 'mer_sandbox',
      summary: { fail: 0, skip: 1, mustPassFailed: 0 },
    });
    expect(result.cases.find((c: { id: string }) => c.id === 'bad-signature')).toMatchObject({
      level: 'must-pass',
      result: 'pass',
      status: 400,
    });
  });

  it('--junit writes one testcase per case: a failed must-pass case is a <failure>, an advice not followed is <skipped>', async () => {
    // Refuses what is not signed right and anything of 64 KiB or more: must-pass cases pass, the large payload does not.
    const careful = carefulHandler('plain', CREDS.secret);
    receiver = await startFakeMerchant({ answer: (request) => (request.body.length >= 64 * 1024 ? 413 : careful.answer(request)) });
    const file = join(dir, 'audit.xml');
    const run = await runCli(['audit-webhooks', '--to', `${receiver.url}/webhooks`, '--junit', file]);
    expect(run.exitCode).toBe(0);
    const xml = readFileSync(file, 'utf8');
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="sandbox audit-webhooks" tests="10" failures="0" errors="0" skipped="2" time="[\d.]+">/,
    );
    expect(xml).toMatch(/<testcase classname="webhook-audit.must-pass" name="bad signature" time="[\d.]+"\/>/);
    expect(xml).toMatch(
      /<testcase classname="webhook-audit.advice" name="large payload \(256 KiB\)" time="[\d.]+">\n\s+<skipped message="advice not followed: answered 413 in \d+ ms; a 256 KiB event/,
    );

    receiver.close();
    receiver = await startFakeMerchant();
    expect((await runCli(['audit-webhooks', '--to', `${receiver.url}/webhooks`, '--junit', file])).exitCode).toBe(1);
    expect(readFileSync(file, 'utf8')).toMatch(
      /<testcase classname="webhook-audit.must-pass" name="bad signature" time="[\d.]+">\n\s+<failure type="must-pass" message="answered 200 in \d+ ms; a request whose X-Sandbox-Signature does not verify must be refused with a 4xx: anyone could have sent it"\/>/,
    );
  });

  it('--url takes the secret, the terminal keys and real events from the running sandbox', async () => {
    const sandbox: RunningServer = await startTestServer({ fixtures: undefined });
    try {
      // The handler knows mer_other's secret only: the audit must sign with the secret the sandbox holds for --merchant.
      const careful = carefulHandler('plain', CREDS.other.secret);
      receiver = await startFakeMerchant({ answer: careful.answer });
      const run = await runCli([
        'audit-webhooks',
        '--to',
        `${receiver.url}/webhooks`,
        '--url',
        sandbox.url,
        '--merchant',
        'mer_other',
        '--json',
      ]);
      const result = JSON.parse(run.out);
      expect(result).toMatchObject({ passed: true, source: sandbox.url, merchantId: 'mer_other' });
      expect(result.cases.every((c: { result: string }) => c.result !== 'fail')).toBe(true);
      // The pair came from the sandbox: its payment is a payment of mer_other there.
      const paymentId = JSON.parse(receiver.received[0]!.body).data.payment_id;
      const events = (await api(sandbox.url).get(`/_sandbox/events?resource=${paymentId}`)).json;
      // Both events may carry the same millisecond, so their list order is not fixed.
      expect(events.data.map((e: { event: string; merchant_id: string }) => `${e.event} ${e.merchant_id}`).sort()).toEqual([
        'payment.authorized mer_other',
        'payment.captured mer_other',
      ]);

      expect(
        (await runCli(['audit-webhooks', '--to', `${receiver.url}/webhooks`, '--url', sandbox.url, '--merchant', 'mer_nobody'])).error,
      ).toBe(`--merchant mer_nobody is not a merchant of the sandbox at ${sandbox.url}; use one of mer_sandbox, mer_other`);
    } finally {
      await sandbox.close();
    }
  });

  it('names the flag and how to fix it when one is wrong', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['--to', 'ftp://127.0.0.1/hook'],
        '--to must be the http(s) URL of the webhook handler, such as http://127.0.0.1:3000/webhooks, got "ftp://127.0.0.1/hook"',
      ],
      [
        ['--to', 'http://127.0.0.1:9/', '--signature', 'sha1'],
        '--signature must be plain or timestamped or standard (the mode the handler verifies), got "sha1"',
      ],
      [['--to', 'http://127.0.0.1:9/', '--timeout', 'soon'], '--timeout must be a duration like 5s or 500ms, got "soon"'],
      [['--to', 'http://127.0.0.1:9/', '--timeout', '2m'], '--timeout must be a duration greater than 0 and at most 60s, got "2m"'],
      [
        ['--to', 'http://127.0.0.1:9/', '--header-prefix', '9x'],
        '--header-prefix must be letters and digits, starting with a letter, like Sandbox, got "9x"',
      ],
      [
        ['--to', 'http://127.0.0.1:9/', '--merchant', 'mer_nobody'],
        'no merchant mer_nobody in the fixtures; use one of mer_sandbox, mer_other',
      ],
    ];
    for (const [args, message] of cases) expect((await runCli(['audit-webhooks', ...args])).error).toBe(message);
    expect((await runCli(['audit-webhooks'])).error).toMatch(/required option '--to <url>' not specified/);
  });

  it('the built CLI exits 1 for a failing handler and 0 for a careful one', async () => {
    receiver = await startFakeMerchant();
    const failing = await runBuiltCli(['audit-webhooks', '--to', `${receiver.url}/webhooks`]);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain('FAILED: 2 must-pass cases failed');
    await receiver.close();
    receiver = await startFakeMerchant({ answer: carefulHandler('timestamped', CREDS.secret).answer });
    const passing = await runBuiltCli(['audit-webhooks', '--to', `${receiver.url}/webhooks`, '--signature', 'timestamped']);
    expect(passing.stderr).toBe('');
    expect(passing.code).toBe(0);
    expect(passing.stdout).toMatch(/stale timestamp\s+must-pass\s+pass\s+answered 400/);
  });
});
