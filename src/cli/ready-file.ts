// The ready file of `sandbox start --ready-file FILE`: the base URL on one line, for scripts that
// start the sandbox in the background. It only ever names a sandbox that answers: `start` removes
// the file a dead sandbox left before anything else, writes it atomically (a temporary file
// renamed into place, so a reader never sees half a URL) once the sandbox answers, and removes it
// again on exit. Only a SIGKILL leaves it behind, which is why `sandbox wait --ready-file` asks
// the URL's sandbox whether it is alive before believing the file.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensureDirectory } from '../store/sandbox-dir.js';
import { CliError } from './cli-error.js';
import { ClientError } from '../client/client-error.js';
import { ControlClient } from './control-client.js';
import { isUntrustedCertificate } from '../tls/untrusted.js';
import { httpTransport } from '../client/http-transport.js';

/** How often `sandbox wait --ready-file` looks at the file and asks the sandbox it names. */
const READY_POLL_MS = 100;

/** True when anything answers HTTP at `url`: a sandbox that wants a control token still answers. */
async function answers(url: string): Promise<boolean> {
  try {
    const answer = await httpTransport(`${url}/_sandbox/health`, { signal: AbortSignal.timeout(1000) });
    // It answered; the body is read only to free the connection.
    await answer.text().catch(() => {});
    return true;
  } catch (err) {
    // An --https sandbox whose CA this process does not trust still answers.
    return isUntrustedCertificate(err);
  }
}

/**
 * Removes the ready file a dead sandbox left (SIGKILLed, so it could not remove it itself). A live
 * sandbox's file stays: a second start that is then refused (its port or database taken) must not
 * take the file from the one that runs.
 */
export async function clearStaleReadyFile(path: string): Promise<void> {
  const url = readReadyFile(path);
  if (url !== undefined && !(URL.canParse(url) && (await answers(url)))) rmSync(path, { force: true });
}

/** Writes `url` to `path` in one step: readers see no file or the whole URL, never a part. */
export function writeReadyFile(path: string, url: string): void {
  ensureDirectory(dirname(path));
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, `${url}\n`);
    renameSync(temporary, path);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
}

/** The URL in `path`, or undefined when there is no such file (or it is empty). */
export function readReadyFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim() || undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Removes `path` if it still names `url` (a newer sandbox may have taken the file over). */
export function removeOwnReadyFile(path: string, url: string): void {
  try {
    if (readReadyFile(path) === url) rmSync(path, { force: true });
  } catch {
    // Nothing to clean up, or nothing we may clean up.
  }
}

/**
 * Waits until `path` names a sandbox that answers its health check, and returns that URL; throws a
 * CliError at `deadline` saying what the file held. A file naming a dead sandbox (one killed with
 * SIGKILL, or the URL of a past run) is waited past, never believed.
 */
export async function waitForReadyFile(path: string, deadline: number, controlToken?: string): Promise<string> {
  for (;;) {
    const url = readReadyFile(path);
    let problem = `${path} does not exist yet`;
    if (url !== undefined) {
      try {
        await new ControlClient({ url, controlToken }).get('/health');
        return url;
      } catch (err) {
        // An --https sandbox whose CA this process does not trust (NODE_EXTRA_CA_CERTS) answers all the same.
        if (err instanceof ClientError && err.code === 'certificate_untrusted') return url;
        if (!(err instanceof ClientError)) throw err;
        problem = `${path} names ${url}: ${err.message.replace(/; start one with .*$/, '')}`;
      }
    }
    if (Date.now() >= deadline)
      throw new CliError(
        `no sandbox became ready: ${problem} (a sandbox writes the file once it answers and removes it when it stops; one killed with SIGKILL leaves it behind)`,
      );
    await new Promise((resolve) => setTimeout(resolve, Math.min(READY_POLL_MS, Math.max(0, deadline - Date.now()))));
  }
}
