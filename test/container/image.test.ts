// The container image, built from the Containerfile and run with podman (`npm run test:container`,
// not part of `npm test`: the first build takes minutes). It proves: the image builds from a local
// debian:trixie-slim (made with debootstrap when missing, as no registry is reachable here), is
// under 250 MB, runs as a non-root user and carries its OCI labels and HEALTHCHECK; the health
// check (`sandbox health`, no curl) turns healthy; a 3-D Secure payment made through the port is
// approved and its webhook reaches a receiver on the host; the control plane still refuses a
// foreign Origin; SIGTERM stops it cleanly (exit 0, not podman's SIGKILL); a restart on the same
// /data volume keeps the payment. Podman runs here only with runc, cgroupfs, host networking and
// lowered ulimits (this VM); where podman cannot run at all, the file is skipped with a message.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BASE = 'docker.io/library/debian:trixie-slim';
const IMAGE = 'localhost/paysandbox:test';
const NAME = `paysandbox-test-${process.pid}`;
const VOLUME = `paysandbox-test-${process.pid}`;
const TOKEN = 'container-test-token';
/** Podman's flags on this VM: crun and the default ulimits fail here; bridge networking too. */
const ENGINE = ['--runtime', 'runc', '--cgroup-manager=cgroupfs'];
const RUN_FLAGS = ['--network', 'host', '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024'];

/** Runs podman (or another command) to its end: exit code and output. */
function run(command: string, args: string[], timeoutMs = 120_000) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const podman = (args: string[], timeoutMs?: number) => run('podman', [...ENGINE, ...args], timeoutMs);

/** Why podman cannot run a container here, or undefined when it can. */
function podmanProblem(): string | undefined {
  try {
    execFileSync('podman', [...ENGINE, 'info'], { stdio: 'ignore', timeout: 60_000 });
    return undefined;
  } catch (err) {
    return `podman cannot run here (${(err as Error).message.split('\n')[0]}); install podman and runc from Debian`;
  }
}
const PROBLEM = podmanProblem();
if (PROBLEM) console.warn(`test/container skipped: ${PROBLEM}`);

/** A free TCP port on this machine. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What a registry's -slim image leaves out (dpkg path-excludes, as Debian's own slim images have them). */
const SLIM = [
  'path-exclude /usr/share/doc/*',
  'path-include /usr/share/doc/*/copyright',
  'path-exclude /usr/share/man/*',
  'path-exclude /usr/share/groff/*',
  'path-exclude /usr/share/info/*',
  'path-exclude /usr/share/lintian/*',
  'path-exclude /usr/share/locale/*',
];

/**
 * The base the image builds on: debian:trixie-slim, made with debootstrap when no registry gave
 * one. debootstrap's minbase keeps the docs, man pages and locales a registry's slim image leaves
 * out (about 46 MB), so they go here, flattened into one layer, and the size check measures what
 * users pull. This machine's extra CAs go in too: its npm traffic passes a TLS-inspecting proxy.
 */
async function baseImage(): Promise<string> {
  if ((await podman(['image', 'exists', BASE])).code !== 0) {
    const dir = mkdtempSync(join(tmpdir(), 'trixie-'));
    const made = await run('debootstrap', ['--variant=minbase', 'trixie', dir], 600_000);
    if (made.code !== 0) throw new Error(`debootstrap failed: ${made.stderr.slice(-500)}`);
    const imported = await run('bash', ['-c', `tar -C ${dir} -c . | podman import - ${BASE}`], 300_000);
    if (imported.code !== 0) throw new Error(`podman import failed: ${imported.stderr}`);
  }
  // Made once: a new base every run would rebuild the whole image (about 25 minutes here).
  if ((await podman(['image', 'exists', 'localhost/paysandbox-base:test'])).code === 0) return 'localhost/paysandbox-base:test';
  const caDir = '/usr/local/share/ca-certificates';
  const cas = existsSync(caDir) ? readdirSync(caDir).filter((f) => f.endsWith('.crt')) : [];
  const slim = [
    'rm -rf /usr/share/doc/* /usr/share/man/* /usr/share/groff/* /usr/share/info/* /usr/share/lintian/* /usr/share/locale/*',
    `printf '%s\\n' ${SLIM.map((line) => `'${line}'`).join(' ')} > /etc/dpkg/dpkg.cfg.d/slim`,
    ...(cas.length
      ? ['mkdir -p /usr/local/share/ca-certificates && cat /host-cas/*.crt > /usr/local/share/ca-certificates/host-cas.crt']
      : []),
  ].join(' && ');
  const maker = `paysandbox-base-${process.pid}`;
  try {
    const made = await podman([
      'run',
      '--name',
      maker,
      ...RUN_FLAGS,
      ...(cas.length ? ['-v', `${caDir}:/host-cas:ro`] : []),
      BASE,
      'sh',
      '-c',
      slim,
    ]);
    if (made.code !== 0) throw new Error(`the slim base did not build: ${made.stderr}`);
    const env = cas.length ? ["--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/host-cas.crt'"] : [];
    const flattened = await run(
      'bash',
      ['-c', `podman ${ENGINE.join(' ')} export ${maker} | podman import ${env.join(' ')} - localhost/paysandbox-base:test`],
      300_000,
    );
    if (flattened.code !== 0) throw new Error(`the slim base did not import: ${flattened.stderr}`);
  } finally {
    await podman(['rm', '-f', maker]);
  }
  return 'localhost/paysandbox-base:test';
}

/** The URL-encoded or JSON body of a webhook, whichever it is. */
function fields(body: string): Record<string, string> {
  return body.startsWith('{') ? JSON.parse(body) : Object.fromEntries(new URLSearchParams(body));
}

describe.skipIf(PROBLEM !== undefined)('the container image', () => {
  let port: number;
  let url: string;
  const hooks: string[] = [];
  const receiver = createHttpServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      hooks.push(body);
      res.end('ok');
    });
  });
  let receiverUrl: string;
  /** The authstatus URL of the payment made through the port. */
  let statusUrl = '';

  /** Starts the container on `port` with the /data volume and the control token. */
  async function startContainer(): Promise<void> {
    const started = await podman([
      'run',
      '-d',
      '--name',
      NAME,
      ...RUN_FLAGS,
      '-v',
      `${VOLUME}:/data`,
      '-e',
      `SANDBOX_PORT=${port}`,
      '-e',
      `SANDBOX_URL=http://127.0.0.1:${port}`,
      '-e',
      `SANDBOX_CONTROL_TOKEN=${TOKEN}`,
      IMAGE,
    ]);
    expect(started.code, started.stderr).toBe(0);
    // The HEALTHCHECK as docker runs it: podman runs it on demand here (no systemd timers in this VM).
    await waitFor(async () => (await podman(['healthcheck', 'run', NAME])).code === 0, 'the container to be healthy', 60_000, 500);
  }

  beforeAll(async () => {
    const base = await baseImage();
    const built = await podman(
      ['build', ...RUN_FLAGS, '--format', 'docker', '--build-arg', `BASE=${base}`, '-t', IMAGE, '-f', 'Containerfile', ROOT],
      1_500_000,
    );
    expect(built.code, built.stderr.slice(-3000)).toBe(0);
    port = await freePort();
    url = `http://127.0.0.1:${port}`;
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  }, 1_800_000);

  afterAll(async () => {
    await podman(['rm', '-f', '-t', '0', NAME]);
    await podman(['volume', 'rm', '-f', VOLUME]);
    await new Promise((resolve) => receiver.close(resolve));
  }, 120_000);

  it('is under 250 MB, runs as a non-root user, and carries its labels, port, volume and HEALTHCHECK', async () => {
    const inspected = JSON.parse((await podman(['image', 'inspect', IMAGE])).stdout)[0];
    console.log(`image size: ${(inspected.Size / 1e6).toFixed(1)} MB`);
    expect(inspected.Size).toBeLessThan(250_000_000);
    expect(inspected.Config.User).toBe('sandbox');
    expect(Object.keys(inspected.Config.ExposedPorts)).toEqual(['4010/tcp']);
    expect(Object.keys(inspected.Config.Volumes)).toEqual(['/data']);
    expect(inspected.Config.Labels).toMatchObject({
      'org.opencontainers.image.source': expect.stringMatching(/^https:\/\//),
      'org.opencontainers.image.version': expect.any(String),
      'org.opencontainers.image.licenses': 'MIT',
    });
    // podman's inspect has the HEALTHCHECK at the top level (docker's under Config).
    expect((inspected.Healthcheck ?? inspected.Config.Healthcheck).Test).toEqual(['CMD', 'sandbox', 'health']);
    const uid = await podman(['run', '--rm', ...RUN_FLAGS, '--entrypoint', 'id', IMAGE, '-u']);
    expect(Number(uid.stdout.trim())).toBeGreaterThan(0);
  });

  it('turns healthy, takes a 3-D Secure payment through its port, delivers the webhook to the host, and refuses a foreign Origin', async () => {
    await startContainer();
    const created = await fetch(`${url}/api/s2s`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(s2sBody({ webhook_url: receiverUrl, reference: 'container-3ds' })),
    });
    const payment = (await created.json()) as { transID: string; authurl: string; authstatus: string };
    statusUrl = payment.authstatus;
    expect(payment.authurl).toMatch(new RegExp(`^${url}/authenticate/`));
    const approved = await podman(['exec', NAME, 'sandbox', 'authenticate', payment.transID, 'approve']);
    expect(approved.code, approved.stderr).toBe(0);
    await waitFor(() => hooks.some((h) => fields(h).transID === payment.transID), 'the webhook of the payment on the host', 30_000, 100);
    const refused = await fetch(`${url}/_sandbox/reset`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(403);
    const unauthorized = await fetch(`${url}/_sandbox/health`);
    expect(unauthorized.status).toBe(401);
  });

  it('stops cleanly on SIGTERM (exit 0, not killed), and a restart on the same /data volume keeps the payment', async () => {
    const started = Date.now();
    // 10 s before podman would SIGKILL it: exit code 137 would mean SIGTERM was not handled.
    const stopped = await podman(['stop', '-t', '10', NAME], 60_000);
    console.log(`stop after SIGTERM: ${Date.now() - started} ms`);
    expect(stopped.code, stopped.stderr).toBe(0);
    const exit = (await podman(['inspect', NAME, '--format', '{{.State.ExitCode}}'])).stdout.trim();
    expect(exit).toBe('0');
    await podman(['rm', NAME]);
    await startContainer();
    const kept = await fetch(statusUrl);
    expect(await kept.json()).toMatchObject({ status: 'Test Approved' });
  });
});
