// `sandbox start` options as a user sets them, on real processes of the built CLI: SANDBOX_*
// variables take effect, a flag beats its variable, a bad value stops the start with one line
// naming what the user set, and --scenario finds a shipped scenario by name from any directory.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBuiltCli, startCliSandbox } from '../helpers/cli-sandbox.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

/** A port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A directory outside this repository, as a merchant's project is. */
const elsewhere = () => mkdtempSync(join(tmpdir(), 'merchant-project-'));

describe('SANDBOX_* variables', () => {
  it('SANDBOX_PORT, SANDBOX_HOST, SANDBOX_DB, SANDBOX_RETRY and SANDBOX_LOG_FORMAT take effect when no flag is given', async () => {
    const port = await freePort();
    const db = join(elsewhere(), 'env.db');
    const env = {
      SANDBOX_PORT: String(port),
      SANDBOX_HOST: '127.0.0.2',
      SANDBOX_DB: db,
      SANDBOX_RETRY: 'none',
      SANDBOX_LOG_FORMAT: 'json',
    };
    const sandbox = await startCliSandbox([], { port: false, env, cwd: elsewhere() });
    try {
      expect(sandbox.url).toBe(`http://127.0.0.2:${port}`);
      expect(sandbox.stdout).toContain(`Database   ${db}`);
      expect(sandbox.stdout).toContain('Webhooks   retry none;');
      await fetch(`${sandbox.url}/_sandbox/health`);
      const line = await waitFor(() => sandbox.stdout.split('\n').find((l) => l.includes('/_sandbox/health')), 'the request log line');
      expect(JSON.parse(line)).toMatchObject({ method: 'GET', path: '/_sandbox/health' });
    } finally {
      await sandbox.stop();
    }
  });

  it('a flag wins over its variable', async () => {
    const env = { SANDBOX_PORT: '1', SANDBOX_RETRY: 'none', SANDBOX_SCENARIO: 'no-such-scenario' };
    const sandbox = await startCliSandbox(['--db', ':memory:', '--retry', '1s,5s', '--scenario', 'outcomes-by-amount'], {
      env,
      cwd: elsewhere(),
    });
    try {
      expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sandbox.url).not.toMatch(/:1$/);
      expect(sandbox.stdout).toContain('Webhooks   retry 1s, 5s;');
    } finally {
      await sandbox.stop();
    }
  });

  it.each([
    [{ SANDBOX_PORT: 'abc' }, [], 'SANDBOX_PORT must be a whole number from 0 to 65535 (0 picks a free port), got "abc"'],
    [{ SANDBOX_RETRY: 'often' }, [], 'SANDBOX_RETRY must be dev, realistic, none or a list like 1s,5s,1m, got "often"'],
    [{ SANDBOX_LOG_FORMAT: 'xml' }, [], 'SANDBOX_LOG_FORMAT must be pretty or json, got "xml"'],
    [
      { SANDBOX_AUTO_AUTHENTICATE: 'maybe' },
      [],
      'SANDBOX_AUTO_AUTHENTICATE must be approve or decline, optionally with a delay like approve:5s, got "maybe"',
    ],
    [
      {},
      ['--auto-authenticate', 'later'],
      '--auto-authenticate must be approve or decline, optionally with a delay like approve:5s, got "later"',
    ],
    [{}, ['--webhook-timeout', 'soon'], '--webhook-timeout must be a duration like 30s, 15m or 2h, got "soon"'],
    [
      {},
      ['--webhook-timeout', '1h'],
      '--webhook-timeout must be at most 60s (the gateway allows 5s; a stop waits for webhook attempts in flight this long), got "1h"',
    ],
    [{ SANDBOX_QUIET: 'yes' }, [], 'SANDBOX_QUIET must be 1, true, 0 or false, got "yes"'],
    [{}, ['--front-thread', 'sideways'], '--front-thread must be auto or on or off, got "sideways"'],
    [{ SANDBOX_FRONT_THREAD: 'yes' }, [], 'SANDBOX_FRONT_THREAD must be auto or on or off, got "yes"'],
    [
      {},
      ['--otlp', 'localhost:4318'],
      '--otlp must be the http(s) URL of an OTLP/HTTP collector, like http://127.0.0.1:4318 (spans go to its /v1/traces) or a full traces URL such as http://127.0.0.1:4318/v1/traces, got "localhost:4318"',
    ],
    [
      { SANDBOX_OTLP: 'grpc://127.0.0.1:4317' },
      [],
      'SANDBOX_OTLP must be the http(s) URL of an OTLP/HTTP collector, like http://127.0.0.1:4318 (spans go to its /v1/traces) or a full traces URL such as http://127.0.0.1:4318/v1/traces, got "grpc://127.0.0.1:4317"',
    ],
  ])('a bad value stops the start with one line naming it: %j %j', async (env, args, message) => {
    const run = await runBuiltCli(['start', '--db', ':memory:', ...args], { env, cwd: elsewhere() });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`sandbox: ${message}\n`);
    expect(run.stdout).toBe('');
  });

  it('sandbox start --help names the default and the variable of each option', async () => {
    const run = await runBuiltCli(['start', '--help']);
    const help = run.stdout.replace(/\s+/g, ' ');
    for (const text of [
      '(default: 4010, env: SANDBOX_PORT)',
      '(default: 127.0.0.1, env: SANDBOX_HOST)',
      '(default: .sandbox/sandbox.db, env: SANDBOX_DB)',
      '(default: dev, env: SANDBOX_RETRY)',
      '(default: pretty, env: SANDBOX_LOG_FORMAT)',
      'env: SANDBOX_SCENARIO',
      'how long a webhook POST may take to answer, at most 60s (a stop waits this long for attempts in flight) (default: 5s, env: SANDBOX_WEBHOOK_TIMEOUT)',
      'its flag, else its SANDBOX_* variable, else its default',
    ]) {
      expect(help).toContain(text);
    }
  });
});

describe('--scenario from a merchant project', () => {
  it('loads a shipped scenario by name', async () => {
    const sandbox = await startCliSandbox(['--db', ':memory:', '--quiet', '--scenario', '3ds-fails-then-approves'], { cwd: elsewhere() });
    try {
      const queue = (await fetch(`${sandbox.url}/_sandbox/scenarios`).then((res) => res.json())) as {
        data: Array<{ scenario: string; outcome: string }>;
      };
      expect(queue.data.map((e) => [e.scenario, e.outcome])).toEqual([
        ['3ds-fails-then-approves', 'challenge:fail'],
        ['3ds-fails-then-approves', 'challenge'],
      ]);
    } finally {
      await sandbox.stop();
    }
  });

  it('loads a file relative to the working directory', async () => {
    const project = elsewhere();
    writeFileSync(join(project, 'mine.json'), JSON.stringify({ entries: [{ outcome: 'decline:card_declined' }] }));
    const sandbox = await startCliSandbox(['--db', ':memory:', '--quiet', '--scenario', 'mine.json'], { cwd: project });
    try {
      const res = await fetch(`${sandbox.url}/api/s2s`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(s2sBody({ ccno: '4242424242424242' })),
      });
      expect(((await res.json()) as { response: string }).response).toMatch(/^card_declined/);
    } finally {
      await sandbox.stop();
    }
  });

  it('a missing file says it does not exist and lists the shipped names', async () => {
    const project = elsewhere();
    const run = await runBuiltCli(['start', '--db', ':memory:', '--scenario', 'fixtures/scenarios/3ds-fails-then-approve.json'], {
      cwd: project,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `sandbox: --scenario: scenario file ${join(project, 'fixtures/scenarios/3ds-fails-then-approve.json')} does not exist; shipped scenarios, given by name: 3ds-fails-then-approves, insufficient-funds-then-approves, outcomes-by-amount\n`,
    );
  });

  it('a file that is not JSON says so', async () => {
    const project = elsewhere();
    writeFileSync(join(project, 'broken.json'), '{"entries": [');
    const run = await runBuiltCli(['start', '--db', ':memory:', '--scenario', 'broken.json'], { cwd: project });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^sandbox: --scenario \S+broken\.json is not valid JSON: /);
  });
});
