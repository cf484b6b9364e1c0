// What every service is built from. One object, so adding a service does not change signatures.
import type { Config } from '../config.js';
import type { Store } from '../store/store.js';
import type { Clock } from '../runtime/clock.js';
import type { ActivityBus } from '../runtime/activity.js';
import type { Outbox } from '../webhooks/outbox.js';
import type { Logger } from '../runtime/logger.js';

/** The base URL pages and authurls are built on; set once the server knows its port. */
export interface PublicUrl {
  base: string;
}

/** Shared dependencies of the services. */
export interface ServiceDeps {
  config: Config;
  store: Store;
  clock: Clock;
  activity: ActivityBus;
  /** The rows of events and deliveries; services write them only through the EventPublisher. */
  outbox: Outbox;
  logger: Logger;
  publicUrl: PublicUrl;
}
