// `prism proxy <document> <upstream> --errors` (@stoplight/prism-cli) in front of a sandbox: every
// request and answer passing through is validated against the document; with --errors a violation
// becomes an error answer instead of a log line only. Also `prism mock <document>`, which answers
// from the document's examples alone. Keeps what Prism logged.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait-for.js';

const PRISM = fileURLToPath(new URL('../../node_modules/.bin/prism', import.meta.url));

/** A running Prism proxy. */
export interface PrismProxy {
  url: string;
  /** Everything Prism printed so far (stdout and stderr, no colours). */
  readonly log: string;
  /** SIGTERM, then waits for the exit. */
  close(): Promise<void>;
}

/** A port on 127.0.0.1 that was free a moment ago (Prism cannot listen on port 0 and say which it got). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Starts the proxy and resolves once Prism says it is listening. */
export function startPrismProxy(documentPath: string, upstream: string): Promise<PrismProxy> {
  return startPrism(['proxy', documentPath, upstream, '--errors']);
}

/** Starts `prism mock` (static: each answer is the document's example) and resolves once it listens. */
export function startPrismMock(documentPath: string): Promise<PrismProxy> {
  return startPrism(['mock', documentPath, '--errors']);
}

/** Starts Prism with `args` on a free port of 127.0.0.1. */
async function startPrism(args: string[]): Promise<PrismProxy> {
  const port = await freePort();
  const child = spawn(process.execPath, [PRISM, ...args, '-p', String(port), '-h', '127.0.0.1'], {
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const keep = (chunk: Buffer) => (log += chunk.toString());
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    await waitFor(
      () => {
        if (gone) throw new Error(`prism ${args[0]} exited before it was ready:\n${log}`);
        return log.includes('Prism is listening');
      },
      `prism ${args[0]} to listen on port ${port}`,
      90_000,
      50,
    );
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    get log() {
      return log;
    },
    async close() {
      if (!gone) child.kill('SIGTERM');
      await exited;
    },
  };
}
