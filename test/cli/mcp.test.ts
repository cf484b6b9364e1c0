// `sandbox mcp` on stdio, driven by the MCP SDK's own client as a coding agent's client starts it:
// the rehearsal through tools alone against a sandbox it starts itself (--start) and against a running
// one (--url, --control-token); the server exits when its client goes away and leaves no sandbox
// behind; `sandbox mcp config` prints and writes each client's project file.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { BIN, runBuiltCli } from '../helpers/cli-sandbox.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { callError, callOk, rehearse, stdioMcpClient } from '../helpers/mcp-client.js';
import { startTestServer } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

let merchant: FakeMerchant;
let dir: string;

beforeAll(async () => {
  merchant = await startFakeMerchant();
  dir = mkdtempSync(join(tmpdir(), 'paysandbox-mcp-'));
});

afterAll(async () => {
  await merchant?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** True while something answers at `url`. */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/_sandbox/health`);
    return true;
  } catch {
    return false;
  }
}

describe('sandbox mcp --start', () => {
  it('runs the rehearsal through tools alone against the sandbox it started, and stops it with the session', async () => {
    const { client, transport, stderr } = await stdioMcpClient(['--start']);
    const url = await waitFor(() => /started a sandbox for this session at (\S+)/.exec(stderr())?.[1], 'the sandbox URL on stderr');
    try {
      await rehearse(client, `${merchant.url}/hooks/stdio`);
      expect(await callError(client, 'create_payment', { api: 's2s' })).toMatch(/webhook_url is required/);
      expect(await answers(url)).toBe(true);
    } finally {
      await client.close();
    }
    expect(transport.pid).toBeNull();
    expect(await answers(url)).toBe(false);
  });

  it('exits by itself, status 0, when its client goes away (stdin ends), and the database is free again', async () => {
    const db = join(dir, 'session.db');
    const first = startSession(['--start', '--db', db]);
    const url = await waitFor(
      () => /started a sandbox for this session at (\S+)/.exec(first.stderr())?.[1],
      'the sandbox URL on stderr',
      20_000,
    );
    first.child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
    );
    await waitFor(() => first.stdout().includes('"serverInfo"'), 'the initialize answer', 20_000);
    // Nothing but the protocol on stdout: one JSON-RPC message per line.
    for (const line of first.stdout().trim().split('\n')) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    first.child.stdin.end();
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(await answers(url)).toBe(false);
    // The database lock went with it: another session opens the same file (a held lock would stop it, exit 1).
    const second = startSession(['--start', '--db', db]);
    await waitFor(() => second.stderr().includes('started a sandbox') || second.child.exitCode !== null, 'the second session', 20_000);
    second.child.stdin.end();
    expect(await second.exited, second.stderr()).toEqual({ code: 0, signal: null });
  });
});

/** `sandbox mcp ...args` as a child with its pipes, for a client of our own making. */
function startSession(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'mcp', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

describe('sandbox mcp against a running sandbox', () => {
  let sandbox: RunningServer;
  beforeAll(async () => {
    sandbox = await startTestServer({ controlToken: 'ctl_stdio_secret' });
  });
  afterAll(() => sandbox?.close());

  it('talks to --url with --control-token (or SANDBOX_CONTROL_TOKEN), and says so when the token is wrong', async () => {
    const { client } = await stdioMcpClient(['--url', sandbox.url], { SANDBOX_CONTROL_TOKEN: 'ctl_stdio_secret' });
    try {
      const made = await callOk<{ id: string }>(client, 'create_merchant', { name: 'stdio' });
      expect(sandbox.services.merchants.get(made.id).name).toBe('stdio');
      await callOk(client, 'delete_merchant', { id: made.id });
    } finally {
      await client.close();
    }
    const wrong = await stdioMcpClient(['--url', sandbox.url, '--control-token', 'ctl_wrong']);
    try {
      expect(await callError(wrong.client, 'list_deliveries', {})).toMatch(/Authorization: Bearer <control token>.*401 control_forbidden/);
    } finally {
      await wrong.client.close();
    }
  });

  it('answers a tool error naming the way out when no sandbox answers at --url', async () => {
    const { client } = await stdioMcpClient(['--url', 'http://127.0.0.1:9']);
    try {
      expect(await callError(client, 'list_deliveries', {})).toMatch(
        /no sandbox answers at http:\/\/127.0.0.1:9; start one with `npx sandbox start`/,
      );
    } finally {
      await client.close();
    }
  });
});

describe('sandbox mcp config', () => {
  it.each([
    ['claude', '.mcp.json', { mcpServers: { paysandbox: { type: 'stdio', command: 'npx', args: ['paysandbox', 'mcp'] } } }],
    ['cursor', '.cursor/mcp.json', { mcpServers: { paysandbox: { command: 'npx', args: ['paysandbox', 'mcp'] } } }],
    ['vscode', '.vscode/mcp.json', { servers: { paysandbox: { type: 'stdio', command: 'npx', args: ['paysandbox', 'mcp'] } } }],
  ])(
    'prints the %s block and writes %s in the project, next to what is there, and nothing in the home folder',
    async (client, file, block) => {
      const printed = await runBuiltCli(['mcp', 'config', '--client', client, '--json']);
      expect(printed.code, printed.stderr).toBe(0);
      expect(JSON.parse(printed.stdout)).toEqual({ client, file, transport: 'stdio', written: false, config: block });
      const project = mkdtempSync(join(dir, `${client}-`));
      mkdirSync(join(project, file, '..'), { recursive: true });
      const key = Object.keys(block)[0]!;
      writeFileSync(join(project, file), JSON.stringify({ [key]: { other: { command: 'other' } }, keep: true }));
      const home = mkdtempSync(join(dir, `${client}-home-`));
      const written = await runBuiltCli(['mcp', 'config', '--client', client, '--write', '--start'], {
        cwd: project,
        env: { HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: join(home, '.config') },
      });
      expect(written.code, written.stderr).toBe(0);
      expect(readdirSync(home), 'the home folder').toEqual([]);
      const doc = JSON.parse(readFileSync(join(project, file), 'utf8'));
      expect(doc.keep).toBe(true);
      expect(doc[key].other).toEqual({ command: 'other' });
      expect(doc[key].paysandbox.args).toEqual(['paysandbox', 'mcp', '--start']);
    },
  );

  it('writes Codex a TOML table in .codex/config.toml, replacing its own on a second run, and prints the http form', async () => {
    const project = mkdtempSync(join(dir, 'codex-'));
    mkdirSync(join(project, '.codex'));
    writeFileSync(join(project, '.codex/config.toml'), 'model = "o3"\n\n[mcp_servers.other]\ncommand = "other"\n');
    for (const args of [[], ['--url', 'http://127.0.0.1:4020']]) {
      const run = await runBuiltCli(['mcp', 'config', '--client', 'codex', '--write', ...args], { cwd: project });
      expect(run.code, run.stderr).toBe(0);
    }
    expect(readFileSync(join(project, '.codex/config.toml'), 'utf8')).toBe(
      'model = "o3"\n\n[mcp_servers.other]\ncommand = "other"\n\n[mcp_servers.paysandbox]\ncommand = "npx"\nargs = ["paysandbox", "mcp", "--url", "http://127.0.0.1:4020"]\n',
    );
    const http = await runBuiltCli(['mcp', 'config', '--client', 'claude', '--transport', 'http']);
    expect(http.stdout).toContain('"url": "http://127.0.0.1:4010/_sandbox/mcp"');
  });

  it('refuses an unknown client or transport before writing anything', async () => {
    const run = await runBuiltCli(['mcp', 'config', '--client', 'emacs', '--write'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--client must be claude, cursor, vscode or codex, got "emacs"');
    const transport = await runBuiltCli(['mcp', 'config', '--client', 'claude', '--transport', 'ws']);
    expect(transport.stderr).toContain('--transport must be stdio or http');
  });
});
