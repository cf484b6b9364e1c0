// startSandbox(): the sandbox as a fixture in a merchant's own test suite (vitest, jest, node:test).
// Defaults fit tests: in-memory database, a free port, no webhook retries, no log lines. Every
// instance has its own database, clock and worker, so several in one process never interfere.
import { loadConfig, START_ENV, type ConfigFlags } from '../config.js';
import { validate } from '../contracts/validate.js';
import { closestNames } from '../domain/closest-names.js';
import { AUTHENTICATION_OUTCOMES, orList, type AuthenticationOutcome } from '../domain/vocabularies.js';
import { clockAdvanceProblem, parseDuration } from '../domain/duration.js';
import { SandboxError, present } from '../errors.js';
import { startServer, type RunningServer } from '../server/start-server.js';
import { OUTCOME_VERDICTS, type Verdict } from '../services/authentication.js';
import { createMerchantSchema } from '../contracts/merchants.js';
import type { Services } from '../services/services.js';
import type { TableCounts } from '../services/snapshot/snapshot.js';
import type { AuditResult } from '../webhooks/audit/audit.js';
import { createdMerchant, credentialsOf } from './credentials.js';
import type { SandboxDelivery } from './deliveries.js';
import type {
  AuditWebhooksOptions,
  AuthenticationResult,
  CreatedMerchant,
  CreateMerchantOptions,
  DiagnoseSignatureOptions,
  SandboxCredentials,
  TriggerOptions,
  WaitForDeliveryOptions,
} from './handle-types.js';
import { allDeliveries, DeliveryWaits } from './wait-for-delivery.js';
import { diagnoseSignatureSchema } from '../contracts/signature-diagnosis-schema.js';
import type { SignatureDiagnosis } from '../signatures/findings.js';
import { triggerSchema } from '../contracts/events.js';
import type { EventType } from '../domain/event-types.js';
import { toTriggerResultView, type TriggeredEvent } from '../views/event.js';
import { toDeliveryView } from '../views/delivery.js';
import { expectationSchema, journalQuery } from '../contracts/journal.js';
import { journalFilter } from '../http/control/journal.js';
import { toExpectationResultView, toJournalEntryView, type ExpectationResultView, type JournalEntryView } from '../views/journal.js';
import { scriptTokenSchema } from '../contracts/token-outcomes.js';
import { advanceSchema } from '../contracts/clock.js';
import { advanceView } from '../http/control/routes.js';
import type { ClockAdvanceView } from '../views/clock.js';
import { warmUp } from '../http/warm-up.js';

/** Options of startSandbox: the flags of `sandbox start`, camelCased (port, db, retry, fixtures, scenario...). */
export type StartSandboxOptions = ConfigFlags;

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
  authenticate(id: string, outcome: AuthenticationOutcome): Promise<AuthenticationResult>;
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
    /**
     * Moves sandbox time forward ("15m", "90s", or milliseconds) and runs what fell due (jobs, retries),
     * at once; resolves with what the jump caused, as POST /_sandbox/clock/advance answers it (jobs,
     * scripted outcomes taken, events, each delivery's first attempt), once every delivery had its
     * first attempt or `wait` (default "5s") passed.
     */
    advance(duration: string | number, options?: { wait?: string }): Promise<ClockAdvanceView>;
  };
  /**
   * Grades the webhook handler at `url`: sends it the audit's deliveries (valid, bad signature, stale
   * timestamp, tampered body, duplicate, a body that does not round-trip, unknown type, out of order, encrypted S2S, large) and
   * resolves with each case's result; `passed` is false when a must-pass case failed.
   */
  auditWebhooks(url: string, options?: AuditWebhooksOptions): Promise<AuditResult>;
  /**
   * Why your handler's signature check fails: give it the headers, the raw body (text or Buffer) and
   * the secret your handler had; answers {valid, cause, message} as POST /_sandbox/signatures/diagnose.
   */
  diagnoseSignature(received: DiagnoseSignatureOptions): SignatureDiagnosis;
  /**
   * Produces an event as `sandbox trigger` does (POST /_sandbox/events/trigger): real objects driven
   * to it, optionally on an existing payment, with `set` fields, delivered to `to`; resolves with
   * the same answer as that route. Bad options are the route's own errors (SandboxError).
   */
  trigger(type: string, options?: TriggerOptions): Promise<TriggeredEvent>;
  /**
   * The request journal, newest first, as GET /_sandbox/requests answers it (masked): filtered by
   * method, path (* patterns), status ('4xx'), merchant, payment, idempotencyKey, since, limit.
   */
  requests(filter?: RequestFilter): JournalEntryView[];
  /**
   * Resolves when the merchant sent a request that matches (method, path, a partial deep body,
   * headers, count: exactly that many); else throws a RequestExpectationError whose message lists
   * the closest requests and the fields that differ, and whose `result` holds them.
   */
  expectRequested(expectation: RequestExpectation): Promise<ExpectationResultView>;
  /**
   * Queues what the next charges on a saved token do, one each ("approve" or a decline code of the
   * test-card table), as POST /_sandbox/tokens/{id}/outcomes; resolves with everything that now waits.
   * The token must be the merchant's own: the handle's merchant unless `merchant` names another.
   */
  scriptToken(id: string, outcomes: string[], options?: { merchant?: string }): Promise<string[]>;
  /** The running server underneath, for what the handle does not cover. */
  server: RunningServer;
}

/** Filters of requests(). */
export interface RequestFilter {
  method?: string;
  path?: string;
  status?: string;
  merchant?: string;
  payment?: string;
  idempotencyKey?: string;
  since?: string;
  limit?: number;
}

/** What expectRequested() checks. */
export interface RequestExpectation {
  method?: string;
  path?: string;
  body?: unknown;
  headers?: Record<string, string>;
  count?: number;
  merchant?: string;
  since?: string;
}

/** expectRequested() found too few or too many matching requests; `result` has the near misses. */
export class RequestExpectationError extends Error {
  constructor(readonly result: ExpectationResultView) {
    super(result.message);
    this.name = 'RequestExpectationError';
  }
}

const TEST_DEFAULTS: ConfigFlags = { port: 0, db: ':memory:', retry: 'none', quiet: true };

/** A misspelt option (retries, dbPath) would otherwise be dropped silently and the default used. */
function refuseUnknownOptions(options: StartSandboxOptions): void {
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
}

/** createMerchant(): the control API's checks, so a bad option gets the same message as a bad body field. */
function createMerchant(services: Services, options: CreateMerchantOptions): CreatedMerchant {
  const input = validate(createMerchantSchema(), {
    ...options,
    ...(options.terminals
      ? { terminals: options.terminals.map((t) => ({ terNO: t.terNO, public_key: t.publicKey, private_key: t.privateKey })) }
      : {}),
  });
  return createdMerchant(services.merchants.create(input));
}

/** authenticate(): completes the open challenge as the customer would on its page; returns it. */
function completeChallenge(services: Services, id: string, outcome: Parameters<SandboxHandle['authenticate']>[1]) {
  const verdict: Verdict | undefined = Object.hasOwn(OUTCOME_VERDICTS, outcome) ? OUTCOME_VERDICTS[outcome] : undefined;
  if (!verdict)
    throw new SandboxError(
      'parameter_invalid',
      `outcome must be ${orList(AUTHENTICATION_OUTCOMES, true)}, got ${JSON.stringify(outcome)}`,
      'outcome',
    );
  return services.auth.completeFor(id, verdict).challenge;
}

/** diagnoseSignature(): the headers a framework gives (undefined ones dropped) and the body as text, as the control route takes them. */
function diagnoseSignature(services: Services, { headers, body, secret }: DiagnoseSignatureOptions): SignatureDiagnosis {
  const given = Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined));
  const text = typeof body === 'string' ? body : body.toString('utf8');
  return services.signatures.diagnose(validate(diagnoseSignatureSchema(), { headers: given, body: text, secret }));
}

/** trigger(): the control route's checks and answer, so an option is judged as the body field it stands for. */
function trigger(services: Services, type: string, options: TriggerOptions): TriggeredEvent {
  const body = validate(triggerSchema(), {
    type,
    payment_id: options.payment,
    to: options.to,
    merchant: options.merchant,
    set: options.set,
  });
  const event = body.type as EventType;
  const result = services.triggers.trigger({
    type: event,
    paymentId: body.payment_id,
    to: body.to,
    merchantId: body.merchant,
    set: body.set,
  });
  return toTriggerResultView(event, result, result.deliveryId ? toDeliveryView(services.deliveries.byId(result.deliveryId)) : null);
}

/** auditWebhooks(): each setting defaults to what this sandbox sends with. */
async function auditWebhooks(server: RunningServer, merchantId: string, url: string, options: AuditWebhooksOptions): Promise<AuditResult> {
  // Loaded here, not with the library: a suite that never audits does not compile the audit's cases.
  const [{ auditInputProblem }, { runWebhookAudit }, { syntheticAuditMaterial }] = await Promise.all([
    import('../webhooks/audit/audit.js'),
    import('../webhooks/audit/cases.js'),
    import('../server/audit-material.js'),
  ]);
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
  const material = syntheticAuditMaterial(config.fixturesPath, options.merchant ?? merchantId);
  return runWebhookAudit(url, { ...material, secret: options.secret ?? material.secret }, settings);
}

/** scriptToken(): the control route's checks, so an outcome is judged as the body field it stands for. */
function scriptToken(services: Services, merchantId: string, id: string, outcomes: string[], merchant?: string): string[] {
  const body = validate(scriptTokenSchema(), { outcomes, merchant: merchant ?? merchantId });
  return services.tokens.script(services.tokens.scriptMerchant(body.merchant), id, body.outcomes);
}

/** clock.advance(): text follows the rules of `sandbox clock advance` (a unit, never backwards); wait those of the route. */
async function advanceClock(services: Services, wake: () => void, duration: string | number, wait = '5s'): Promise<ClockAdvanceView> {
  const problem = typeof duration === 'string' ? clockAdvanceProblem(duration) : undefined;
  const ms = typeof duration === 'number' ? duration : parseDuration(duration);
  if (problem !== undefined || ms === undefined || !Number.isFinite(ms) || ms <= 0) {
    throw new SandboxError(
      'parameter_invalid',
      `clock.advance takes a duration such as "15m", "90s" or a number of milliseconds greater than 0, got ${JSON.stringify(duration)}${problem ? `: ${problem}` : ''}`,
      'duration',
    );
  }
  const { wait: checked } = validate(advanceSchema(), { duration: '1s', wait });
  return advanceView(
    services,
    await services.clockAdvances.advance(
      ms,
      present(parseDuration(present(checked, 'wait (it has a default)')), 'wait (the schema checked it)'),
      wake,
    ),
  );
}

/** Starts a sandbox for a test suite; call close() when done (afterAll). */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<SandboxHandle> {
  refuseUnknownOptions(options);
  // Never the environment: a test's sandbox must not change with the shell that runs it.
  // HTTP on the main thread unless `frontThread: 'on'` (auto is off here): a suite's requests come
  // one at a time, where a front thread adds two hand-offs to each and its start to startSandbox()
  // (docs/decisions.md).
  const config = loadConfig({ ...TEST_DEFAULTS, ...options }, {});
  const server = await startServer(config, { front: config.frontThread === 'on' });
  let credentials: SandboxCredentials;
  try {
    credentials = credentialsOf(server);
    // A suite's first request should not pay for compiling the request path.
    await warmUp(server.app);
  } catch (err) {
    await server.close();
    throw err;
  }
  const { services } = server;
  const waits = new DeliveryWaits(services);
  /** What changed the state may have made jobs and deliveries due: run them now, not at the next tick. */
  const wake = <T>(result: T): T => {
    services.jobs.runDue();
    server.worker.wake();
    return result;
  };
  return {
    url: server.url,
    credentials,
    server,
    async close() {
      waits.cancelAll('waitForDelivery: the sandbox was closed while waiting');
      await server.close();
    },
    async reset(options = {}) {
      return wake(options.merchant === undefined ? await services.snapshot.reset() : await services.merchants.reset(options.merchant));
    },
    createMerchant: (options = {}) => createMerchant(services, options),
    deleteMerchant: async (id) => wake(await services.merchants.delete(id)),
    async authenticate(id, outcome): Promise<AuthenticationResult> {
      const done = wake(completeChallenge(services, id, outcome));
      return { state: done.state, redirectUrl: services.auth.returnUrl(done) };
    },
    waitForDelivery: (wanted) => waits.wait(wanted),
    deliveries: () => allDeliveries(services),
    auditWebhooks: async (url, options = {}) => auditWebhooks(server, credentials.merchantId, url, options),
    diagnoseSignature: (received) => diagnoseSignature(services, received),
    trigger: async (type, options = {}) => wake(trigger(services, type, options)),
    requests(filter = {}) {
      const { idempotencyKey, limit, ...rest } = filter;
      const query = validate(journalQuery(), {
        ...rest,
        ...(idempotencyKey === undefined ? {} : { idempotency_key: idempotencyKey }),
        ...(limit === undefined ? {} : { limit: String(limit) }),
      });
      return services.journal.list(journalFilter(services, query)).data.map(toJournalEntryView);
    },
    async expectRequested(expectation) {
      journalFilter(services, {});
      const result = toExpectationResultView(services.journal.expect(validate(expectationSchema(), expectation)));
      if (!result.ok) throw new RequestExpectationError(result);
      return result;
    },
    scriptToken: async (id, outcomes, options = {}) => scriptToken(services, credentials.merchantId, id, outcomes, options.merchant),
    clock: {
      now: () => services.clock.now(),
      advance: (duration, options = {}) => advanceClock(services, () => server.worker.wake(), duration, options.wait),
    },
  };
}
