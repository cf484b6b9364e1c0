// All repositories over one database handle. Services take a Store and run their writes inside
// store.tx(...) so a state change and its outbox rows commit together.
import type { Db } from './open-database.js';
import { createCredentialsRepo } from './credentials-repo.js';
import { createTransactionsRepo } from './transactions-repo.js';
import { createChallengesRepo } from './challenges-repo.js';
import { createEventsRepo } from './events-repo.js';
import { createDeliveriesRepo, type DueListener } from './deliveries-repo.js';
import { createJobsRepo } from './jobs-repo.js';
import { createS2SRefundsRepo } from './s2s-refunds-repo.js';
import { createScenariosRepo } from './scenarios-repo.js';
import { createPaymentsRepo } from './payments-repo.js';
import { createV1RefundsRepo } from './v1-refunds-repo.js';
import { createTokensRepo } from './tokens-repo.js';
import { createCheckoutSessionsRepo } from './checkout-sessions-repo.js';
import { createChargebacksRepo } from './chargebacks-repo.js';
import { createSettlementsRepo } from './settlements-repo.js';
import { createTriggersRepo } from './triggers-repo.js';
import { createFaultRulesRepo } from './fault-rules-repo.js';
import { createWebhookEndpointsRepo } from './webhook-endpoints-repo.js';
import { createIdempotencyRepo } from './idempotency-repo.js';
import { createClockRepo } from './clock-repo.js';
import { createMerchantRows } from './merchant-rows.js';
import { createMerchantRecords } from './merchant-records.js';
import { GroupCommit } from './group-commit.js';
import { createJournalRepo } from './journal-repo.js';
import { createStoryRepo } from './story-repo.js';

/** What the store tells of its writes. */
export interface StoreOptions {
  /** Told where a write made a webhook delivery due (the delivery worker's queues, DeliveryWorker.deliveryDue). */
  onDeliveryDue?: DueListener;
}

/** Builds every repository once (their statements are prepared once). */
export function createStore(db: Db, options: StoreOptions = {}) {
  const batch = new GroupCommit(db);
  const scenarios = createScenariosRepo(db);
  const webhookEndpoints = createWebhookEndpointsRepo(db);
  batch.onForget(() => {
    scenarios.forget();
    webhookEndpoints.forget();
  });
  return {
    db,
    /** The shared transaction of this event-loop turn (see group-commit.ts). */
    batch,
    /** Runs `fn` atomically; it commits with the other writes of this turn, before any answer is sent. */
    tx<T>(fn: () => T): T {
      return batch.run(fn);
    },
    /** Runs `fn` atomically in this turn's batch as a record no answer reports (the request journal): see GroupCommit.run. */
    recordTx<T>(fn: () => T): T {
      return batch.run(fn, false);
    },
    credentials: createCredentialsRepo(db),
    transactions: createTransactionsRepo(db),
    challenges: createChallengesRepo(db),
    events: createEventsRepo(db),
    deliveries: createDeliveriesRepo(db, options.onDeliveryDue),
    jobs: createJobsRepo(db),
    s2sRefunds: createS2SRefundsRepo(db),
    scenarios,
    payments: createPaymentsRepo(db),
    v1Refunds: createV1RefundsRepo(db),
    tokens: createTokensRepo(db),
    checkoutSessions: createCheckoutSessionsRepo(db),
    chargebacks: createChargebacksRepo(db),
    settlements: createSettlementsRepo(db),
    triggers: createTriggersRepo(db),
    faultRules: createFaultRulesRepo(db),
    webhookEndpoints,
    idempotency: createIdempotencyRepo(db),
    clock: createClockRepo(db),
    merchantRows: createMerchantRows(db),
    merchantRecords: createMerchantRecords(db),
    journal: createJournalRepo(db),
    story: createStoryRepo(db),
  };
}

/** The repositories of one sandbox. */
export type Store = ReturnType<typeof createStore>;
