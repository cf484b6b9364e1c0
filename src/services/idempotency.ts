// Idempotency keys (docs/decisions.md): the same key and the same request within 24 h (sandbox clock)
// get the first answer again; the same key with another request is a 409. A key is held in memory
// while its first request runs, so a concurrent duplicate waits for that answer instead of running
// the handler a second time; the answer is written once, in the same group-commit batch as the
// writes it reports. That is one indexed read before the handler and one row written after it,
// about as cheap as a key can be while it still survives a restart.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { masked } from '../domain/journal-mask.js';
import { SandboxError } from '../errors.js';
import type { ServiceDeps } from './deps.js';

/** How long a key replays its first answer (sandbox clock). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * How often (sandbox clock) storing an answer also deletes the keys past the window. Lookups ignore
 * an expired row whether or not it is gone yet, so this only bounds the table, and keeps the
 * delete off almost every request.
 */
export const IDEMPOTENCY_PURGE_EVERY_MS = 60 * 60 * 1000;

/** The request a key is used for. */
export interface IdempotentRequest {
  /** Whose key it is (the merchant), so merchants never share keys. */
  scope: string;
  key: string;
  method: string;
  path: string;
  body: string;
}

/** A stored answer to replay. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Either run the handler (the key is now held) or replay what the first request got. */
export type Admission = { kind: 'run' } | { kind: 'replay'; answer: StoredAnswer };

// A fingerprint is stored, so it must not give back the card a body carried: a SHA-256 of the raw
// bytes would (the stored answer names the card's first six and last four digits and its expiry,
// which leaves about 10^8 guesses of the middle digits and the CVV). So a fingerprint is two hashes:
// the raw bytes under a key that lives only in this process's memory (exact, and useless to anyone
// who reads the database), and the body as the journal masks it (what a restarted process, which
// never had that key, compares).
const PROCESS_KEY = randomBytes(32);
/** Names the fingerprints this process made: their exact half can be checked only here. */
const PROCESS_MARK = randomBytes(8).toString('hex');

// createHash, not the one-shot hash(): that needs Node 20.12, and the package runs on any Node 20.
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** What every hash of a request starts with: its method and path. */
const requestHead = (method: string, path: string) => `${method.toUpperCase()}\n${path}\n`;

/** What "the same request" is kept as: method, path and body, masked and exact (see above). */
export function requestFingerprint(method: string, path: string, body: string): string {
  const head = requestHead(method, path);
  const exact = createHmac('sha256', PROCESS_KEY)
    .update(head + body)
    .digest('hex');
  return `${sha256(head + masked(body))}.${PROCESS_MARK}.${exact}`;
}

/**
 * True when `first` (a stored or running fingerprint) is of the same request as `request`'s: the
 * raw bytes when this process made it, else the masked body; a row of an earlier version holds the
 * SHA-256 of the raw bytes.
 */
function sameRequest(first: string, fingerprint: string, request: IdempotentRequest): boolean {
  const [firstMasked, firstMark, firstExact] = first.split('.');
  const [thisMasked, , thisExact] = fingerprint.split('.');
  if (firstMark === undefined) return first === sha256(requestHead(request.method, request.path) + request.body);
  return firstMark === PROCESS_MARK ? firstExact === thisExact : firstMasked === thisMasked;
}

/** A key whose first request is being handled by this process. */
interface Running {
  fingerprint: string;
  method: string;
  path: string;
  createdAt: number;
  /** Settles with the answer, or undefined when the request ended without one worth keeping (a 5xx). */
  settled: Promise<StoredAnswer | undefined>;
  settle(answer: StoredAnswer | undefined): void;
}

/** The idempotency use cases. */
export class Idempotency {
  /** How long a duplicate waits for the first request before 409 idempotency_key_in_progress (real time). */
  inProgressWaitMs = 5000;
  private readonly running = new Map<string, Running>();
  private nextPurgeAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: ServiceDeps) {
    // Databases written by earlier versions reserved keys in the table; any such row is from a process that stopped.
    deps.store.idempotency.releaseAllInProgress();
  }

  /** Holds the key for this request, or waits for the request that holds it and replays its answer. */
  async admit(request: IdempotentRequest): Promise<Admission> {
    const fingerprint = requestFingerprint(request.method, request.path, request.body);
    const method = request.method.toUpperCase();
    const slot = `${request.scope}\n${request.key}`;
    const deadline = Date.now() + this.inProgressWaitMs;
    for (;;) {
      const running = this.running.get(slot);
      if (running) {
        this.refuseOther(request, fingerprint, running);
        const answer = await settledBefore(running.settled, deadline);
        if (answer === 'late') {
          throw new SandboxError(
            'idempotency_key_in_progress',
            `a request with Idempotency-Key "${request.key}" is still being processed; retry in a moment to get its answer`,
            'Idempotency-Key',
            { 'Retry-After': '1' },
          );
        }
        if (answer) return { kind: 'replay', answer };
        continue; // the first request ended in a 5xx: this one runs (or waits for whoever got there first)
      }
      const now = this.deps.clock.now();
      const stored = this.deps.store.idempotency.get(request.scope, request.key);
      if (stored && stored.createdAt > now - IDEMPOTENCY_WINDOW_MS) {
        this.refuseOther(request, fingerprint, stored);
        return { kind: 'replay', answer: { status: stored.responseStatus, headers: stored.responseHeaders, body: stored.responseBody } };
      }
      let settle!: (answer: StoredAnswer | undefined) => void;
      const settled = new Promise<StoredAnswer | undefined>((resolve) => (settle = resolve));
      this.running.set(slot, { fingerprint, method, path: request.path, createdAt: now, settled, settle });
      return { kind: 'run' };
    }
  }

  /** Stores the answer of a held key (in the open batch, with the writes it reports) and hands it to waiting duplicates. */
  complete(scope: string, key: string, answer: StoredAnswer): void {
    const slot = `${scope}\n${key}`;
    const running = this.running.get(slot);
    if (!running) return;
    const { store, clock } = this.deps;
    try {
      store.tx(() => {
        const now = clock.now();
        if (now >= this.nextPurgeAt) {
          store.idempotency.purge(now - IDEMPOTENCY_WINDOW_MS);
          this.nextPurgeAt = now + IDEMPOTENCY_PURGE_EVERY_MS;
        }
        store.idempotency.save({
          scope,
          key,
          fingerprint: running.fingerprint,
          method: running.method,
          path: running.path,
          responseStatus: answer.status,
          responseHeaders: answer.headers,
          responseBody: answer.body,
          createdAt: running.createdAt,
        });
      });
    } catch (err) {
      // Not stored: a waiting duplicate runs the request itself rather than replay an answer a retry would not get.
      this.release(scope, key);
      throw err;
    }
    this.running.delete(slot);
    running.settle(answer);
  }

  /** Frees a held key without an answer (a 5xx), so a retry, or a waiting duplicate, runs the handler again. */
  release(scope: string, key: string): void {
    const slot = `${scope}\n${key}`;
    const running = this.running.get(slot);
    this.running.delete(slot);
    running?.settle(undefined);
  }

  /** 409 idempotency_key_reused when the key was first used for another request. */
  private refuseOther(request: IdempotentRequest, fingerprint: string, first: { fingerprint: string; method: string; path: string }): void {
    if (sameRequest(first.fingerprint, fingerprint, request)) return;
    const where =
      first.method === request.method.toUpperCase() && first.path === request.path
        ? 'with a different body'
        : `for ${first.method} ${first.path}`;
    throw new SandboxError(
      'idempotency_key_reused',
      `Idempotency-Key "${request.key}" was already used ${where}; use a new key for a new request, or resend exactly the first request to get its answer again`,
      'Idempotency-Key',
    );
  }
}

/** The answer once `settled` settles, or 'late' if that is after `deadline` (Date.now() time). */
function settledBefore(settled: Promise<StoredAnswer | undefined>, deadline: number): Promise<StoredAnswer | undefined | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()), 'late')));
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
}
