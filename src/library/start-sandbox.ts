// startSandbox(): the sandbox as a fixture in a merchant's own test suite (vitest, jest, node:test).
// Defaults fit tests: in-memory database, a free port, no webhook retries, no log lines. Every
// instance has its own database, clock and worker, so several in one process never interfere.
import { loadConfig, START_ENV, type ConfigFlags } from '../config.js';
import { closestNames } from '../domain/closest-names.js';
import { clockAdvanceProblem, parseDuration } from '../domain/duration.js';
import { SandboxError } from '../errors.js';
import { startServer, type RunningServer } from '../server/start-server.js';
import { OUTCOME_VERDICTS, type Verdict } from '../services/authentication.js';
import type { TableCounts } from '../services/snapshot.js';
import { describeAttempts, describeDelivery, toSandboxDelivery, type SandboxDelivery } from './deliveries.js';
import { unknownEventProblem } from '../domain/event-types.js';
import { standardSecret, type SignatureMode } from '../crypto/signature.js';
import { validate } from '../contracts/validate.js';
import { createMerchantSchema, type MerchantRecord } from '../services/merchants.js';
import { auditInputProblem, runWebhookAudit, type AuditResult } from '../webhooks/audit.js';
import { syntheticAuditMaterial } from '../server/audit-material.js';
import { diagnoseSignatureSchema } from '../contracts/signature-diagnosis-schema.js';
import type { SignatureDiagnosis } from '../crypto/signature-findings.js';

/** Options of startSandbox: the flags of `sandbox start`, camelCased (port, db, retry, fixtures, scenario...). */
export type StartSandboxOptions = ConfigFlags;

/** One seeded merchant with all its credentials. */
export interface MerchantCredentials {
  merchantId: string;
  name: string;
  /** The secret as the sandbox's mode uses it: with signature 'standard', the whsec_<base64> form Standard Webhooks libraries take. */
  webhookSecret: string;
  apiKeys: string[];
  terminals: Array<{ terNO: number; publicKey: string; privateKey: string }>;
}

/** The credentials of the first seeded merchant, ready to use, and every merchant in `merchants`. */
export interface SandboxCredentials {
  merchantId: string;
  terNO: number;
  publicKey: string;
  privateKey: string;
  apiKey: string;
  webhookSecret: string;
  merchants: MerchantCredentials[];
}

/** What createMerchant() takes; every field is optional. */
export interface CreateMerchantOptions {
  /** Shown in lists and the dashboard (default "Merchant <terNO>"). */
  name?: string;
  /** The currency the sandbox invents objects in for this merchant, e.g. event triggers (default EUR). */
  currency?: string;
  /** Terminals of your choosing (default: one new terminal). */
  terminals?: Array<{ terNO: number; publicKey: string; privateKey: string }>;
}

/** A merchant made by createMerchant(): its first terminal and key ready to use, like the handle's own credentials. */
export interface CreatedMerchant extends MerchantCredentials {
  terNO: number;
  publicKey: string;
  privateKey: string;
  apiKey: string;
  currency: string;
}

/** What waitForDelivery waits for; every field given must match. */
export interface WaitForDeliveryOptions {
  /** The event type, e.g. payment.authorized. */
  event?: string;
  /** The exact URL the webhook goes to. */
  url?: string;
  /** 'succeeded' (default), 'failed' (retries exhausted), or 'any' (queued, in any state). */
  status?: 'succeeded' | 'failed' | 'any';
  /** Real milliseconds to wait before rejecting (default 5000). */
  timeoutMs?: number;
  /** An extra test, e.g. (d) => d.body.transID === transID. */
  match?: (delivery: SandboxDelivery) => boolean;
}

/** What authenticate() did. */
export interface AuthenticationResult {
  /** passed, failed, cancelled or expired. */
  state: string;
  /** Where the customer would be sent next (the merchant's return_url with its query). */
  redirectUrl: string;
}

/** Options of auditWebhooks(); each defaults to what this sandbox would send with. */
export interface AuditWebhooksOptions {
  /** The secret the handler verifies with (default: the merchant's webhook secret). */
  secret?: string;
  /** plain or timestamped (default: the sandbox's --signature). */
  signature?: SignatureMode;
  /** The word in X-<prefix>-Signature (default: the sandbox's --header-prefix). */
  headerPrefix?: string;
  /** Each answer must come within this many milliseconds (default: the sandbox's webhook timeout, 5 s). */
  timeoutMs?: number;
  /** Whose events and secret (default: the first merchant, mer_sandbox). */
  merchant?: string;
}

/** What diagnoseSignature() takes: what your handler received, and the secret it verified with. */
export interface DiagnoseSignatureOptions {
  /** The request headers, as node:http (req.headers) or a framework gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The raw body, exactly as received. */
  body: string | Buffer;
  secret?: string;
}

/** A running sandbox for tests. */
export interface SandboxHandle {
  /** Base URL, e.g. http://127.0.0.1:38211 */
  url: string;
  credentials: SandboxCredentials;
  /** Stops the server, lets webhook attempts in flight finish, closes the database. */
  close(): Promise<void>;
  /**
   * Empties every table but the seeded credentials (created merchants go too), reseeds them and
   * reloads the scenario file; with `{ merchant }`, empties only that merchant's state and returns
   * how many rows of each table went.
   */
  reset(options?: { merchant?: string }): Promise<TableCounts>;
  /** Makes a merchant of its own (terminal, API key, webhook secret), isolated from every other: one per test file or worker. */
  createMerchant(options?: CreateMerchantOptions): CreatedMerchant;
  /** Deletes a merchant made by createMerchant() with everything it owns; returns how many rows of each table went. */
  deleteMerchant(id: string): Promise<TableCounts>;
  /** Completes the open 3-D Secure / bank challenge of a transID (or /v1/ payment id) without a browser. */
  authenticate(id: string, outcome: 'approve' | 'decline' | 'cancel' | 'expire'): Promise<AuthenticationResult>;
  /**
   * Resolves with the newest matching delivery; rejects after timeoutMs listing every delivery so
   * far, or at once for an unknown event name or when every matching delivery failed for good.
   */
  waitForDelivery(options?: WaitForDeliveryOptions): Promise<SandboxDelivery>;
  /** Every delivery, newest last, with attempts and parsed bodies. */
  deliveries(): SandboxDelivery[];
  clock: {
    /** Sandbox time in milliseconds since the epoch. */
    now(): number;
    /** Moves sandbox time forward ("15m", "90s", or milliseconds), runs due jobs and due retries; returns the new time. */
    advance(duration: string | number): number;
  };
  /**
   * Grades the webhook handler at `url`: sends it the audit's deliveries (valid, bad signature, stale
   * timestamp, tampered body, duplicate, unknown type, out of order, encrypted S2S, large) and
   * resolves with each case's result; `passed` is false when a must-pass case failed.
   */
  auditWebhooks(url: string, options?: AuditWebhooksOptions): Promise<AuditResult>;
  /**
   * Why your handler's signature check fails: give it the headers, the raw body (text or Buffer) and
   * the secret your handler had; answers {valid, cause, message} as POST /_sandbox/signatures/diagnose.
   */
  diagnoseSignature(received: DiagnoseSignatureOptions): SignatureDiagnosis;
  /** The running server underneath, for what the handle does not cover. */
  server: RunningServer;
}

function createdMerchant(m: MerchantRecord): CreatedMerchant {
  const terminal = m.terminals[0]!;
  return {
    merchantId: m.id,
    name: m.name,
    currency: m.currency,
    webhookSecret: m.webhookSecret,
    apiKeys: m.apiKeys,
    terminals: m.terminals.map((t) => ({ terNO: t.terNo, publicKey: t.publicKey, privateKey: t.privateKey })),
    terNO: terminal.terNo,
    publicKey: terminal.publicKey,
    privateKey: terminal.privateKey,
    apiKey: m.apiKeys[0]!,
  };
}

const TEST_DEFAULTS: ConfigFlags = { port: 0, db: ':memory:', retry: 'none', quiet: true };

function credentialsOf(server: RunningServer): SandboxCredentials {
  // In standard mode a fixture secret that is not base64 (whsec_test_sandbox) is shown in the form
  // new Webhook(secret) accepts; it is the same key.
  const secretOf = (secret: string) => (server.config.signatureMode === 'standard' ? standardSecret(secret) : secret);
  // In-process, so every merchant at once (one query), not a page at a time as over HTTP.
  const merchants: MerchantCredentials[] = server.services.merchants.all().map((m) => ({
    merchantId: m.id,
    name: m.name,
    webhookSecret: secretOf(m.webhookSecret),
    apiKeys: m.apiKeys,
    terminals: m.terminals.map((t) => ({ terNO: t.terNo, publicKey: t.publicKey, privateKey: t.privateKey })),
  }));
  const first = merchants[0]!;
  const terminal = first.terminals[0];
  if (!terminal || first.apiKeys.length === 0) {
    throw new SandboxError(
      'parameter_invalid',
      `the first merchant of the fixtures (${first.merchantId}) needs a terminal and an API key, so the handle's credentials can name them`,
      'fixtures',
    );
  }
  return {
    merchantId: first.merchantId,
    terNO: terminal.terNO,
    publicKey: terminal.publicKey,
    privateKey: terminal.privateKey,
    apiKey: first.apiKeys[0]!,
    webhookSecret: first.webhookSecret,
    merchants,
  };
}

/** Starts a sandbox for a test suite; call close() when done (afterAll). */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<SandboxHandle> {
  // A misspelt option (retries, dbPath) would otherwise be dropped silently and the default used.
  const known = Object.keys(START_ENV);
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const closest = closestNames(name, known);
    throw new SandboxError(
      'parameter_unknown',
      `startSandbox() has no option ${JSON.stringify(name)};${closest.length ? ` did you mean ${closest.join(' or ')}?` : ''} its options are ${known.join(', ')}`,
      name,
    );
  }
  // Never the environment: a test's sandbox must not change with the shell that runs it.
  const server = await startServer(loadConfig({ ...TEST_DEFAULTS, ...options }, {}));
  let credentials: SandboxCredentials;
  try {
    credentials = credentialsOf(server);
  } catch (err) {
    await server.close();
    throw err;
  }
  const { services } = server;
  const cancelWaits = new Set<(reason: Error) => void>();

  const deliveries = (): SandboxDelivery[] =>
    services.deliveries
      .records({ limit: 1_000_000 })
      .reverse()
      .map((d) => toSandboxDelivery(d, services.deliveries.attemptsOf(d.id)));

  const wake = () => {
    services.jobs.runDue();
    server.worker.wake();
  };

  function waitForDelivery(wanted: WaitForDeliveryOptions = {}): Promise<SandboxDelivery> {
    const status = wanted.status ?? 'succeeded';
    const timeoutMs = wanted.timeoutMs ?? 5000;
    const unknown = wanted.event === undefined ? undefined : unknownEventProblem('event', wanted.event);
    if (unknown) return Promise.reject(new SandboxError('parameter_invalid', `waitForDelivery: ${unknown}`, 'event'));
    const matching = (rowStatus?: 'pending' | 'succeeded' | 'failed') =>
      services.deliveries
        .records({ eventType: wanted.event, url: wanted.url, status: rowStatus, limit: 1000 })
        .map((row) => toSandboxDelivery(row, services.deliveries.attemptsOf(row.id)))
        .filter((delivery) => !wanted.match || wanted.match(delivery));
    const find = () => matching(status === 'any' ? undefined : status)[0];
    // Waiting for a success is hopeless once every matching delivery failed for good (retries
    // exhausted): the rejection says so at once, with their attempts, instead of timing out.
    const failedForGood = () => {
      if (status !== 'succeeded') return undefined;
      const all = matching();
      return all.length > 0 && all.every((d) => d.status === 'failed') ? all : undefined;
    };
    const wantedText = [
      `${status === 'any' ? '' : status + ' '}delivery`,
      wanted.event && `of ${wanted.event}`,
      wanted.url && `to ${wanted.url}`,
      wanted.match && 'matching the given test',
    ]
      .filter(Boolean)
      .join(' ');
    return new Promise((resolve, reject) => {
      const finish = () => {
        unsubscribe();
        clearInterval(poll);
        clearTimeout(timer);
        cancelWaits.delete(cancel);
      };
      const check = () => {
        const found = find();
        if (found) {
          finish();
          return resolve(found);
        }
        const failed = failedForGood();
        if (failed) {
          const log = failed.flatMap((d) => [`  ${describeDelivery(d)}`, ...describeAttempts(d)]).join('\n');
          cancel(
            new Error(
              `waitForDelivery: no ${wantedText} will come: ${failed.length === 1 ? 'the only matching delivery' : `all ${failed.length} matching deliveries`} failed for good (no retries left). Attempts:\n${log}`,
            ),
          );
        }
      };
      const cancel = (reason: Error) => {
        finish();
        reject(reason);
      };
      const unsubscribe = services.activity.subscribe((a) => {
        if (a.kind === 'delivery.attempted' || a.kind === 'event.created') setImmediate(check);
      });
      // The activity bus wakes us at once; the poll is a backstop for changes made by other means.
      const poll = setInterval(check, 50);
      const timer = setTimeout(() => {
        const seen = deliveries();
        const list = seen.length ? seen.map((d) => `  ${describeDelivery(d)}`).join('\n') : '  none';
        cancel(new Error(`waitForDelivery: no ${wantedText} within ${timeoutMs} ms. Deliveries so far (${seen.length}):\n${list}`));
      }, timeoutMs);
      cancelWaits.add(cancel);
      check();
    });
  }

  return {
    url: server.url,
    credentials,
    server,
    async close() {
      for (const cancel of [...cancelWaits]) cancel(new Error('waitForDelivery: the sandbox was closed while waiting'));
      await server.close();
    },
    async reset(options = {}) {
      const counts = options.merchant === undefined ? await services.snapshot.reset() : await services.merchants.reset(options.merchant);
      wake();
      return counts;
    },
    createMerchant(options = {}) {
      // The control API's checks, so a bad option gets the same message as a bad body field.
      const input = validate(createMerchantSchema, {
        ...options,
        ...(options.terminals
          ? { terminals: options.terminals.map((t) => ({ terNO: t.terNO, public_key: t.publicKey, private_key: t.privateKey })) }
          : {}),
      });
      return createdMerchant(services.merchants.create(input));
    },
    async deleteMerchant(id) {
      const removed = await services.merchants.delete(id);
      wake();
      return removed;
    },
    async authenticate(id, outcome) {
      const verdict: Verdict | undefined = Object.hasOwn(OUTCOME_VERDICTS, outcome) ? OUTCOME_VERDICTS[outcome] : undefined;
      if (!verdict)
        throw new SandboxError(
          'parameter_invalid',
          `outcome must be "approve", "decline", "cancel" or "expire", got ${JSON.stringify(outcome)}`,
          'outcome',
        );
      const done = services.auth.completeFor(id, verdict).challenge;
      wake();
      return { state: done.state, redirectUrl: services.auth.returnUrl(done) };
    },
    waitForDelivery,
    deliveries,
    async auditWebhooks(url, options = {}) {
      const { config } = server;
      const settings = {
        signatureMode: options.signature ?? config.signatureMode,
        headerPrefix: options.headerPrefix ?? config.headerPrefix,
        timeoutMs: options.timeoutMs ?? config.webhookTimeoutMs,
      };
      const wrong = auditInputProblem(url, settings);
      if (wrong) {
        const name = wrong.key === 'timeout' ? 'timeoutMs' : wrong.key;
        throw new SandboxError('parameter_invalid', `auditWebhooks: ${name} ${wrong.problem}`, name);
      }
      // Events from a private copy of the fixtures, so the audit adds nothing to this sandbox's state or deliveries.
      const material = syntheticAuditMaterial(config.fixturesPath, options.merchant ?? credentials.merchantId);
      return runWebhookAudit(url, { ...material, secret: options.secret ?? material.secret }, settings);
    },
    diagnoseSignature({ headers, body, secret }) {
      const given = Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined));
      const text = typeof body === 'string' ? body : body.toString('utf8');
      return services.signatures.diagnose(validate(diagnoseSignatureSchema, { headers: given, body: text, secret }));
    },
    clock: {
      now: () => services.clock.now(),
      advance(duration) {
        // Text follows the rules of `sandbox clock advance` (a unit, never backwards).
        const problem = typeof duration === 'string' ? clockAdvanceProblem(duration) : undefined;
        const ms = typeof duration === 'number' ? duration : parseDuration(duration);
        if (problem !== undefined || ms === undefined || !Number.isFinite(ms) || ms <= 0) {
          throw new SandboxError(
            'parameter_invalid',
            `clock.advance takes a duration such as "15m", "90s" or a number of milliseconds greater than 0, got ${JSON.stringify(duration)}${problem ? `: ${problem}` : ''}`,
            'duration',
          );
        }
        const now = services.clock.advance(ms);
        wake();
        return now;
      },
    },
  };
}
