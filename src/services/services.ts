// Builds every service over one set of dependencies. Routes, pages, the control API and
// startSandbox() reach state only through what this returns: the dependencies themselves (store,
// outbox) stay inside the services, and test/unit/layers.test.ts keeps it so.
import type { ServiceDeps } from './deps.js';
import type { CredentialsRepo } from '../store/credentials-repo.js';
import { Authentication } from './authentication.js';
import { EventPublisher } from './event-publisher.js';
import { JobRunner } from './job-runner.js';
import { ClockTrace } from './clock-trace.js';
import { ClockAdvances } from './clock-advances.js';
import { S2SPayments } from './s2s-payments.js';
import { S2SRefunds } from './s2s-refunds.js';
import { Scenarios } from './scenarios.js';
import { Snapshot } from './snapshot/snapshot.js';
import { Tokens } from './tokens.js';
import { Payments } from './payments.js';
import { V1Refunds } from './v1-refunds.js';
import { CheckoutSessions } from './checkout-sessions.js';
import { CheckoutPayments } from './checkout-payments.js';
import { Chargebacks } from './chargebacks.js';
import { Settlements } from './settlements.js';
import { Triggers } from './triggers/triggers.js';
import type { Delivery } from '../store/deliveries-repo.js';
import type { AnswerTrail } from '../store/group-commit.js';
import { Deliveries } from './deliveries.js';
import type { FaultInjector } from '../faults/injector.js';
import type { DeliveriesInFlight } from '../webhooks/delivery/in-flight.js';
import type { SigningResolver } from '../webhooks/webhook-request.js';
import { WebhookEndpoints } from './webhook-endpoints.js';
import { Idempotency } from './idempotency.js';
import { DashboardQueries } from './dashboard/queries.js';
import { MerchantEvents } from './merchant-events.js';
import { Merchants } from './merchants.js';
import { Signals } from './signals.js';
import { Signatures } from './signatures.js';
import { Journal } from './journal/journal.js';
import { Timelines } from './journal/timeline.js';

/** The credential lookups requests need; seeding and forgetting stay with the store's owners. */
export type CredentialLookups = Pick<
  CredentialsRepo,
  'merchant' | 'merchants' | 'terminal' | 'terminalByPublicKey' | 'terminalOfEncryptedData' | 'terminals' | 'apiKeys'
>;

/** What the services take from the delivery side, which is built before them: the outbox they write to wakes its worker. */
export interface DeliverySide {
  /** The fault rules (the worker shapes its attempts by their `webhooks`). */
  faults: FaultInjector;
  /** How a delivery is signed: a registered endpoint's mode and secrets (two while rotating), else the merchant's secret. */
  signing: SigningResolver;
  /** The worker's attempts in flight, which a reset waits for. */
  inFlight: DeliveriesInFlight;
}

/** Creates the services; the order is the order of their dependencies. */
export function createServices(deps: ServiceDeps, { faults, signing, inFlight }: DeliverySide) {
  const signals = new Signals();
  // The fault rules live in memory: a reset or import replaced the table under them.
  signals.on('state.replaced', (how) => faults.stateReplaced(how));
  const core = paymentServices(deps, faults, inFlight, signals);
  const { jobs, events, auth, s2s, payments, v1Refunds, checkout, checkoutPayments } = core;
  const webhookEndpoints = new WebhookEndpoints(deps);
  const idempotency = new Idempotency(deps);
  /** How a delivery is signed, as the worker signs it. */
  const webhookSigning = signing;
  /** The secrets that sign a delivery: a registered endpoint's own (two while rotating), else the merchant's signing secret. */
  const webhookSecrets = (delivery: Delivery): string[] => [...webhookSigning(delivery).secrets];
  const deliveries = new Deliveries(deps, webhookSigning, events);
  const signatures = new Signatures(deps, webhookSigning);
  const journal = new Journal(deps);
  const merchants = new Merchants(deps, core.snapshot, faults);
  const chargebacks = new Chargebacks(deps, jobs, s2s, payments, events);
  const settlements = new Settlements(deps, jobs, events);
  const clockAdvances = new ClockAdvances(deps, jobs, core.trace, deliveries);
  const triggers = new Triggers(deps, {
    jobs,
    auth,
    payments,
    v1Refunds,
    chargebacks,
    settlements,
    checkout,
    checkoutPayments,
    deliveries,
    tokens: core.tokens,
  });
  return {
    ...requestSide(deps),
    dashboard: new DashboardQueries(deps),
    journal,
    timelines: new Timelines(deps, journal, signatures),
    merchantEvents: new MerchantEvents(deps),
    ...core,
    webhookSigning,
    webhookSecrets,
    webhookEndpoints,
    idempotency,
    deliveries,
    signatures,
    faults,
    merchants,
    chargebacks,
    settlements,
    triggers,
    clockAdvances,
  };
}

/** The payment services (S2S, /v1/, checkout) with the jobs, events and authentication they share, in dependency order. */
function paymentServices(deps: ServiceDeps, faults: FaultInjector, inFlight: DeliveriesInFlight, signals: Signals) {
  const trace = new ClockTrace();
  const jobs = new JobRunner(deps, trace);
  const events = new EventPublisher(deps, trace);
  const auth = new Authentication(deps, jobs);
  const s2s = new S2SPayments(deps, auth, events, jobs);
  const s2sRefunds = new S2SRefunds(deps, jobs, events);
  const tokens = new Tokens(deps, jobs, events, trace);
  const scenarios = new Scenarios(deps, faults, tokens);
  const snapshot = new Snapshot(deps, scenarios, inFlight, signals);
  const payments = new Payments(deps, auth, events, jobs, tokens, signals, trace);
  const v1Refunds = new V1Refunds(deps, payments, jobs, events);
  const checkout = new CheckoutSessions(deps, jobs, events, payments);
  const checkoutPayments = new CheckoutPayments(deps, jobs, checkout, payments, signals);
  return { trace, jobs, events, auth, s2s, s2sRefunds, scenarios, snapshot, tokens, payments, v1Refunds, checkout, checkoutPayments };
}

/** What requests read besides the services: the clock, activity, credential lookups, the write batch and the public URL. */
function requestSide(deps: ServiceDeps) {
  const credentials: CredentialLookups = deps.store.credentials;
  /** The write lock and group commit: a request that writes waits for ready(); its answer, handled in answering() (its handler within() its trail), leaves once committed(trail); written() says whether the open batch holds a write. */
  const writes = deps.store.batch;
  const batch = {
    ready: () => writes.ready(),
    answering: <T>(fn: (trail: AnswerTrail) => Promise<T>) => writes.answering(fn),
    within: <T>(trail: AnswerTrail | undefined, fn: () => T) => writes.within(trail, fn),
    committed: (trail?: AnswerTrail) => writes.committed(trail),
    written: () => writes.written,
  };
  /** The base URL pages, authurls and the OpenAPI document are built on. */
  const publicUrl = () => deps.publicUrl.base;
  return { clock: deps.clock, activity: deps.activity, credentials, batch, publicUrl };
}

/** Every service of one sandbox. */
export type Services = ReturnType<typeof createServices>;
