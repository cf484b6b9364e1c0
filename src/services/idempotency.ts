// Idempotency keys (docs/decisions.md): the same key and the same request within 24 h (sandbox clock)
// get the first answer again; the same key with another request is a 409. The key is reserved
// in the store BEFORE the handler runs, so a concurrent duplicate waits for the first answer
// instead of running the handler a second time.
import { createHash } from 'node:crypto';
import { SandboxError } from '../errors.js';
import type { IdempotencyRecord } from '../store/idempotency-repo.js';
import type { ServiceDeps } from './deps.js';

/** How long a key replays its first answer (sandbox clock). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

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

/** Either run the handler (the key is now reserved) or replay what the first request got. */
export type Admission = { kind: 'run' } | { kind: 'replay'; answer: StoredAnswer };

/** SHA-256 over method, path and raw body: what "the same request" means. */
export function requestFingerprint(method: string, path: string, body: string): string {
  return createHash('sha256').update(`${method.toUpperCase()}\n${path}\n${body}`).digest('hex');
}

/** The idempotency use cases. */
export class Idempotency {
  /** How long a duplicate waits for the first request before 409 idempotency_key_in_progress (real time). */
  inProgressWaitMs = 5000;
  /** How often a waiting duplicate looks again. */
  pollMs = 10;

  constructor(private readonly deps: ServiceDeps) {
    // A reservation can only be in progress inside a running process; any left are from one that stopped.
    deps.store.idempotency.releaseAllInProgress();
  }

  /** Reserves the key for this request, or waits for the request that holds it and replays its answer. */
  async admit(request: IdempotentRequest): Promise<Admission> {
    const fingerprint = requestFingerprint(request.method, request.path, request.body);
    const deadline = Date.now() + this.inProgressWaitMs;
    for (;;) {
      const existing = this.reserveOrGet(request, fingerprint);
      if (!existing) return { kind: 'run' };
      if (existing.fingerprint !== fingerprint) {
        const where = existing.method === request.method.toUpperCase() && existing.path === request.path ? 'with a different body' : `for ${existing.method} ${existing.path}`;
        throw new SandboxError(
          'idempotency_key_reused',
          `Idempotency-Key "${request.key}" was already used ${where}; use a new key for a new request, or resend exactly the first request to get its answer again`,
          'Idempotency-Key',
        );
      }
      if (existing.state === 'done') {
        return { kind: 'replay', answer: { status: existing.responseStatus!, headers: existing.responseHeaders ?? {}, body: existing.responseBody ?? '' } };
      }
      if (Date.now() >= deadline) {
        throw new SandboxError(
          'idempotency_key_in_progress',
          `a request with Idempotency-Key "${request.key}" is still being processed; retry in a moment to get its answer`,
          'Idempotency-Key',
          { 'Retry-After': '1' },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
    }
  }

  /** Stores the answer of a reserved key so duplicates replay it. */
  complete(scope: string, key: string, answer: StoredAnswer): void {
    this.deps.store.idempotency.finish(scope, key, answer.status, answer.headers, answer.body);
  }

  /** Frees a reserved key without an answer (a 5xx), so a retry runs the handler again. */
  release(scope: string, key: string): void {
    this.deps.store.idempotency.release(scope, key);
  }

  /** In one transaction: forget keys past the window, then reserve this one or return the row that holds it. */
  private reserveOrGet(request: IdempotentRequest, fingerprint: string): IdempotencyRecord | undefined {
    const { store, clock } = this.deps;
    return store.tx(() => {
      const now = clock.now();
      store.idempotency.purge(now - IDEMPOTENCY_WINDOW_MS);
      if (store.idempotency.reserve(request.scope, request.key, fingerprint, request.method.toUpperCase(), request.path, now)) return undefined;
      return store.idempotency.get(request.scope, request.key);
    });
  }
}
