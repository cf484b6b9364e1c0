// Podman as the container project's tests run it (test/container/, `npm run test:container`), and
// the one build of the image they share (test/setup/container-image.ts builds it before any file).
// This VM needs runc (crun fails), cgroupfs (no systemd) and lowered ulimits; bridge networking,
// published ports and host.containers.internal work.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: the build context. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The image the tests build from the Containerfile. */
export const IMAGE = 'localhost/paysandbox:test';
/** Podman's global flags on this VM: crun fails here, and there is no systemd for cgroups. */
export const ENGINE = ['--runtime', 'runc', '--cgroup-manager=cgroupfs'];
/** The default ulimits fail in this VM. */
export const ULIMITS = ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024'];
/**
 * The same settings as a containers.conf, for what starts containers without these flags
 * (podman's Docker-compatible API for Testcontainers): CONTAINERS_CONF=<this file>.
 */
export const CONTAINERS_CONF = [
  '[containers]',
  'default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]',
  '[engine]',
  'runtime = "runc"',
  'cgroup_manager = "cgroupfs"',
  '',
].join('\n');

/** What a command printed and how it ended. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end: exit code and output (never throws). */
export function run(command: string, args: string[], timeoutMs = 120_000, env?: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: env ?? process.env }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs podman with this VM's engine flags. */
export const podman = (args: string[], timeoutMs?: number): Promise<Ran> => run('podman', [...ENGINE, ...args], timeoutMs);

/** Why podman cannot run a container here, or undefined when it can. */
export function podmanProblem(): string | undefined {
  try {
    execFileSync('podman', [...ENGINE, 'info'], { stdio: 'ignore', timeout: 60_000 });
    return undefined;
  } catch (err) {
    return `podman cannot run here (${(err as Error).message.split('\n')[0]}); install podman and runc from Debian`;
  }
}

/** A free TCP port on this machine. */
export async function freePort(): Promise<number> {
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

/** The base's tag for a day. */
export function baseTag(day = new Date()): string {
  return `localhost/paysandbox-base:trixie-${day.toISOString().slice(0, 10)}`;
}

/** The environment variable that asks for a new base (Debian's updates since the last one). */
export const NEW_BASE_ENV = 'PAYSANDBOX_NEW_BASE';

/**
 * The base to build on: the newest one made, whatever its day, or undefined (make one). A new base
 * rebuilds every layer, the npm install and better-sqlite3's compile among them: about 7 minutes on
 * 2 quiet cores against 20-50 s on cached layers, more than CI's 20 minutes hold beside the rest,
 * so one is made only when there is none or PAYSANDBOX_NEW_BASE=1 asks (baseImage).
 */
export function currentBase(tags: readonly string[]): string | undefined {
  return tags
    .filter((tag) => /^localhost\/paysandbox-base:trixie-\d{4}-\d{2}-\d{2}$/.test(tag))
    .sort()
    .at(-1);
}

/**
 * The base the image builds on, as a registry's debian:trixie-slim, made with debootstrap as no
 * registry is reachable here. debootstrap's minbase also keeps what a slim image leaves out (the
 * .debs it installed, apt's lists, docs, man pages, locales: about 130 MB), so that goes before
 * the import, and the size check measures what users pull. This machine's extra CAs go in too:
 * its npm traffic passes a TLS-inspecting proxy. Made when there is none, or when PAYSANDBOX_NEW_BASE=1
 * asks (currentBase); older bases go then.
 */
export async function baseImage(log: (line: string) => void): Promise<string> {
  const tag = baseTag();
  const listed = await podman(['images', '--format', '{{.Repository}}:{{.Tag}}', 'localhost/paysandbox-base']);
  // A listing that failed is no "no base": making one then would cost minutes and hide podman's error.
  if (listed.code !== 0) throw new Error(`podman images failed: ${listed.stderr.slice(-500)}`);
  const tags = listed.stdout.split('\n');
  // Asked for a new one: today's, made now unless an earlier run made it today.
  const current = process.env[NEW_BASE_ENV] === '1' ? (tags.includes(tag) ? tag : undefined) : currentBase(tags);
  if (current) {
    log(`base ${current} (${NEW_BASE_ENV}=1 makes a new one with Debian's updates)`);
    return current;
  }
  const dir = mkdtempSync(join(tmpdir(), 'trixie-'));
  try {
    const started = Date.now();
    const made = await run('debootstrap', ['--variant=minbase', 'trixie', dir], 1_800_000);
    if (made.code !== 0) throw new Error(`debootstrap failed: ${made.stderr.slice(-500)}`);
    for (const path of [
      'usr/share/doc',
      'usr/share/man',
      'usr/share/groff',
      'usr/share/info',
      'usr/share/lintian',
      'usr/share/locale',
      'var/lib/apt/lists',
      'var/cache/apt',
    ]) {
      rmSync(join(dir, path), { recursive: true, force: true });
    }
    for (const path of ['var/lib/apt/lists/partial', 'var/cache/apt/archives/partial']) mkdirSync(join(dir, path), { recursive: true });
    writeFileSync(join(dir, 'etc/dpkg/dpkg.cfg.d/slim'), `${SLIM.join('\n')}\n`);
    const caDir = '/usr/local/share/ca-certificates';
    const cas = existsSync(caDir) ? readdirSync(caDir).filter((f) => f.endsWith('.crt')) : [];
    const change: string[] = [];
    if (cas.length) {
      const pem = cas.map((f) => readFileSync(join(caDir, f), 'utf8')).join('\n');
      mkdirSync(join(dir, 'usr/local/share/ca-certificates'), { recursive: true });
      writeFileSync(join(dir, 'usr/local/share/ca-certificates/host-cas.crt'), pem);
      change.push('--change', 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/host-cas.crt');
    }
    const imported = await run(
      'bash',
      ['-c', `tar -C "$0" -c . | podman ${ENGINE.join(' ')} import "\${@}" - ${tag}`, dir, ...change],
      600_000,
    );
    if (imported.code !== 0) throw new Error(`podman import failed: ${imported.stderr}`);
    log(`base ${tag} made in ${Math.round((Date.now() - started) / 1000)} s`);
  } finally {
    // A debootstrap that failed half-way may leave /proc and /sys mounted in its folder.
    const mounts = readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' ')[1] ?? '')
      .filter((point) => point.startsWith(`${dir}/`))
      .reverse();
    for (const point of mounts) await run('umount', ['-l', point]);
    rmSync(dir, { recursive: true, force: true });
  }
  const old = await podman(['images', '--format', '{{.Repository}}:{{.Tag}}', 'localhost/paysandbox-base']);
  for (const name of old.stdout.split('\n').filter((n) => n && n !== tag)) await podman(['rmi', name]);
  return tag;
}

/** Builds IMAGE from the Containerfile on the day's base (podman's layer cache makes a rebuild on the same base seconds). */
export async function buildImage(log: (line: string) => void): Promise<void> {
  const base = await baseImage(log);
  const started = Date.now();
  const built = await podman(
    [
      'build',
      '--network',
      'host',
      ...ULIMITS,
      '--format',
      'docker',
      '--build-arg',
      `BASE=${base}`,
      '-t',
      IMAGE,
      '-f',
      join(ROOT, 'Containerfile'),
      ROOT,
    ],
    3_600_000,
  );
  if (built.code !== 0) throw new Error(`podman build failed:\n${built.stderr.slice(-3000)}`);
  log(`image ${IMAGE} built in ${Math.round((Date.now() - started) / 1000)} s`);
}
