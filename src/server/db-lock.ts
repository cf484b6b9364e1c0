// One sandbox per database file. Two on one --db would each run their own clock, job runner and
// webhook worker over the same rows and disagree about the time, so the second refuses to start,
// naming the first's pid and port. The lock is a local socket the owner listens on, named after
// the database's real path: the kernel frees it when the owner dies, even by SIGKILL, so a crashed
// sandbox never blocks the next start, and whoever finds it taken asks the owner who it is. On
// Linux it is an abstract socket (no file at all); on Windows a named pipe; elsewhere a socket file
// in the temporary directory, which a SIGKILL leaves behind: nobody answers there, so it is
// removed and taken. `:memory:` databases are never shared and take no lock.
import { createHash } from 'node:crypto';
import { realpathSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { StartError } from '../errors.js';

/** A database this process holds; `url` is told to a sandbox that asks, once it is known. */
export interface DatabaseLock {
  url: string | undefined;
  release(): Promise<void>;
}

/** Who holds a database, as the owner answers. */
interface Owner {
  pid: number;
  url: string | null;
}

/** The lock's address for a database path, the same for every spelling of that path. */
export function lockAddress(dbPath: string, platform: NodeJS.Platform = process.platform): string {
  const absolute = resolve(dbPath);
  let real: string;
  try {
    real = join(realpathSync(dirname(absolute)), basename(absolute));
  } catch {
    // The folder does not exist yet: nobody can have the file open.
    real = absolute;
  }
  const key = createHash('sha256').update(real).digest('hex').slice(0, 32);
  if (platform === 'linux') return `\0paysandbox-db-${key}`;
  if (platform === 'win32') return `\\\\?\\pipe\\paysandbox-db-${key}`;
  return join(tmpdir(), `paysandbox-db-${key}.sock`);
}

const isSocketFile = (address: string) => !address.startsWith('\0') && !address.startsWith('\\\\');

function listen(server: Server, address: string): Promise<boolean> {
  return new Promise((resolvePromise, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolvePromise(false) : reject(err)));
    server.listen(address, () => resolvePromise(true));
  });
}

/** What the owner at `address` says, or undefined when nobody answers there (a stale socket file). */
function askOwner(address: string): Promise<Owner | undefined> {
  return new Promise((resolvePromise) => {
    let text = '';
    const socket = connect(address);
    socket.setTimeout(2000, () => socket.destroy());
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', () => resolvePromise(undefined));
    socket.on('close', () => {
      try {
        resolvePromise(JSON.parse(text) as Owner);
      } catch {
        resolvePromise(undefined);
      }
    });
  });
}

function inUse(dbPath: string, owner: Owner | undefined): StartError {
  const who = owner
    ? `pid ${owner.pid}${owner.url ? ` on port ${new URL(owner.url).port} (${owner.url})` : ', still starting'}`
    : 'a process that does not answer';
  const stop = owner ? `stop it first (npx sandbox stop, or kill ${owner.pid})` : 'stop it first';
  return new StartError(
    `another sandbox, ${who}, is using the database ${dbPath}: two sandboxes on one file would disagree about the time and the webhooks; ${stop}, or give this one another --db (or :memory:)`,
  );
}

/** Takes the database at `dbPath` for this process, or throws a StartError naming the sandbox that has it. */
export async function lockDatabase(dbPath: string, platform: NodeJS.Platform = process.platform): Promise<DatabaseLock | undefined> {
  if (dbPath === ':memory:') return undefined;
  const address = lockAddress(dbPath, platform);
  const lock: DatabaseLock = { url: undefined, release: async () => {} };
  const answer = () => JSON.stringify({ pid: process.pid, url: lock.url ?? null } satisfies Owner);
  for (let attempt = 0; ; attempt++) {
    const server = createServer((socket) => socket.on('error', () => {}).end(answer()));
    if (await listen(server, address)) {
      // The lock must not keep a process alive that has nothing else to do.
      server.unref();
      lock.release = () => new Promise((done) => server.close(() => done()));
      return lock;
    }
    const owner = await askOwner(address);
    // Nobody answers at a socket file: its owner died without removing it. Take it over, once.
    if (owner === undefined && isSocketFile(address) && attempt === 0) {
      rmSync(address, { force: true });
      continue;
    }
    throw inUse(dbPath, owner);
  }
}
