// The container image, built from the Containerfile and run with podman (`npm run test:container`,
// not part of `npm test`: the first build takes minutes). The project's globalSetup builds it once
// (test/setup/container-image.ts) on a local debian:trixie-slim made with debootstrap, as no
// registry is reachable here (test/container/podman.ts). This file proves: the image is
// under 250 MB, runs as a non-root user and carries its OCI labels and HEALTHCHECK; the health
// check (`sandbox health`, no curl) turns healthy; a 3-D Secure payment made through the port is
// approved and its webhook reaches a receiver on the host; the control plane still refuses a
// foreign Origin; SIGTERM stops it cleanly (exit 0, not podman's SIGKILL); a restart on the same
// /data volume keeps the payment; the image carries `sandbox start`'s code cache, and a container's
// start runs from it. Podman runs here only with runc, cgroupfs and lowered ulimits
// (this VM); where podman cannot run at all, the file is skipped with a message.
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import { freePort, podman, ULIMITS } from './podman.js';

const IMAGE = inject('containerImage');
const SKIP = inject('containerSkip');
const NAME = `paysandbox-test-${process.pid}`;
const VOLUME = `paysandbox-test-${process.pid}`;
const TOKEN = 'container-test-token';
/** Host networking: the published port and the bridge are proven by compose.test.ts. */
const RUN_FLAGS = ['--network', 'host', ...ULIMITS];

/** The URL-encoded or JSON body of a webhook, whichever it is. */
function fields(body: string): Record<string, string> {
  return body.startsWith('{') ? JSON.parse(body) : Object.fromEntries(new URLSearchParams(body));
}

describe.skipIf(SKIP !== '')('the container image', () => {
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

  /** The code cache files in the image or in the running container: modified time and name of each. */
  async function cacheFiles(where: 'image' | 'container'): Promise<string[]> {
    const script = 'stat -c "%Y %n" /app/compile-cache/*.bin';
    const listed =
      where === 'image'
        ? await podman(['run', '--rm', ...RUN_FLAGS, '--entrypoint', 'sh', IMAGE, '-c', script])
        : await podman(['exec', NAME, 'sh', '-c', script]);
    expect(listed.code, listed.stderr).toBe(0);
    return listed.stdout.trim().split('\n');
  }

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
    port = await freePort();
    url = `http://127.0.0.1:${port}`;
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  });

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
    // The code cache of `sandbox start`, made when the image was built (one start's worth).
    expect(await cacheFiles('image')).toEqual([
      expect.stringMatching(/^\d+ \/app\/compile-cache\/paysandbox-start-[0-9a-f]{32}-node[\d.]+-\w+\.bin$/),
    ]);
  });

  it('turns healthy, takes a 3-D Secure payment through its port, delivers the webhook to the host, and refuses a foreign Origin', async () => {
    const built = await cacheFiles('image');
    await startContainer();
    // Its start ran from the image's code cache: a start that found it unfit would have written a new one.
    expect(await cacheFiles('container')).toEqual(built);
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
