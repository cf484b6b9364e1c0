// `sandbox health` (the container image's HEALTHCHECK): exit 0 with one line when the sandbox answers,
// exit 1 with one line saying why when it does not; the built CLI, run as a health check runs it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { startTestServer } from '../helpers/test-sandbox.js';
import { runBuiltCli } from '../helpers/cli-sandbox.js';

/** An HTTP server on a free loopback port that answers every request with `handler` (or never). */
async function listenWith(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A loopback URL nothing listens on: a port just given up by a server. */
async function deadUrl(): Promise<string> {
  const { url, server } = await listenWith(() => {});
  await new Promise((resolve) => server.close(resolve));
  return url;
}

describe('against a sandbox', () => {
  let sandbox: RunningServer;
  beforeAll(async () => {
    sandbox = await startTestServer();
  });
  afterAll(() => sandbox.close());

  it('exits 0 with one line naming the version and the URL', async () => {
    const run = await runBuiltCli(['health', '--url', sandbox.url]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout.trim()).toMatch(
      new RegExp(`^ok: paysandbox \\d+\\.\\d+\\.\\d+\\S* answers at ${sandbox.url} \\(sandbox time \\S+Z\\)$`),
    );
  });

  it('takes the sandbox from SANDBOX_URL, and prints JSON with --json', async () => {
    const run = await runBuiltCli(['health', '--json'], { env: { SANDBOX_URL: sandbox.url } });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'ok', url: sandbox.url, version: expect.any(String), time: expect.any(String) });
  });
});

describe('with --control-token', () => {
  let sandbox: RunningServer;
  beforeAll(async () => {
    sandbox = await startTestServer({ controlToken: 'health-secret' });
  });
  afterAll(() => sandbox.close());

  it('fails with one line without the token, and passes with SANDBOX_CONTROL_TOKEN (what a container hands its HEALTHCHECK)', async () => {
    const refused = await runBuiltCli(['health', '--url', sandbox.url]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^sandbox: .*--control-token.*\(401 control_forbidden\)$/)]);
    const passed = await runBuiltCli(['health', '--url', sandbox.url], { env: { SANDBOX_CONTROL_TOKEN: 'health-secret' } });
    expect(passed.code).toBe(0);
  });
});

describe('when no sandbox answers', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

  it('nothing listening: exit 1, one line naming the URL', async () => {
    const url = await deadUrl();
    const run = await runBuiltCli(['health', '--url', url]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(`sandbox: no sandbox answers at ${url}; start one with \`npx sandbox start\``);
  });

  it('--json: the error as one JSON object on stderr', async () => {
    const url = await deadUrl();
    const run = await runBuiltCli(['health', '--url', url, '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr)).toEqual({ error: { code: 'sandbox_unreachable', message: expect.stringContaining(url) } });
  });

  it('a server that never answers: exit 1 after --timeout, one line', async () => {
    const { url, server } = await listenWith(() => {});
    servers.push(server);
    const run = await runBuiltCli(['health', '--url', url, '--timeout', '300ms']);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(`sandbox: ${url} did not answer within 300ms`);
  });

  it('something else answering 200: exit 1, not taken for a sandbox', async () => {
    const { url, server } = await listenWith((_req, res) => res.end('{"status":"up"}'));
    servers.push(server);
    const run = await runBuiltCli(['health', '--url', url]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      `sandbox: ${url} answered, but not with a sandbox's health ({"status":"ok"}); is --url the sandbox's address?`,
    );
  });

  it('a bad --timeout or --url is refused before any request', async () => {
    expect((await runBuiltCli(['health', '--timeout', 'soon'])).stderr.trim()).toBe(
      'sandbox: --timeout must be a duration like 5s or 1m, got "soon"',
    );
    expect((await runBuiltCli(['health', '--url', 'ftp://x'])).code).toBe(1);
  });
});
