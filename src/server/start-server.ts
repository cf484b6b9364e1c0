// Starts one sandbox: opens and seeds the database, builds the services and the app, listens, and
// starts the delivery worker and job runner. close() undoes it in the reverse order.
import { createAdaptorServer } from '@hono/node-server';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.js';
import { openDatabase, type Db } from '../store/open-database.js';
import { createStore, type Store } from '../store/store.js';
import { startCheckpointer } from '../store/checkpointer.js';
import { readFixtures } from '../store/fixtures.js';
import { systemClock, type Clock } from '../runtime/clock.js';
import { ActivityBus } from '../runtime/activity.js';
import { Outbox } from '../webhooks/outbox.js';
import { DeliveryWorker } from '../webhooks/delivery/worker.js';
import { FaultInjector } from '../faults/injector.js';
import { webhookSigning } from '../webhooks/webhook-request.js';
import { createServices, type Services } from '../services/services.js';
import { createApp, type SandboxApp } from '../http/app.js';
import type { AppDeps } from '../http/app-env.js';
import { createOutcomeOverride } from '../http/outcome-override.js';
import { createLogger, type Logger } from '../runtime/logger.js';
import type { ServiceDeps } from '../services/deps.js';
import { lockDatabase } from './db-lock.js';
import { StartError, errorMessage } from '../errors.js';
import { deliveryCas, servingTls, type ServingTls } from '../tls/serving.js';
import { TLS_SUITES } from '../tls/cipher-suites.js';

/** A running sandbox. */
export interface RunningServer {
  /** The base URL it answers on, e.g. http://127.0.0.1:4010 (https:// with --https) */
  url: string;
  config: Config;
  /** The certificate served with --https (and the local CA to trust); undefined over plain HTTP. */
  tls: ServingTls | undefined;
  db: Db;
  store: Store;
  clock: Clock;
  services: Services;
  worker: DeliveryWorker;
  app: SandboxApp;
  /** Stops accepting, lets in-flight deliveries finish (or releases their leases), closes the db. */
  close(): Promise<void>;
}

/** What a test or the bench may set on a sandbox besides its Config. */
export interface BuildOptions {
  clock?: Clock;
  logger?: Logger;
  db?: Db;
  webhookCa?: readonly string[];
  /** Webhook attempts in flight at once (the bench measures 8 and 32). */
  maxInFlight?: number;
  /** The webhook sender thread's compiled entry (senders.ts); tests running the TypeScript source give a bundle of it. */
  senderEntry?: URL;
}

/** Everything but the listening socket: used by startServer and by route tests. */
export function buildSandbox(config: Config, options: BuildOptions = {}) {
  let db: Db;
  try {
    db = options.db ?? openDatabase(config.dbPath);
  } catch (err) {
    throw new StartError(`cannot open the database at ${config.dbPath}: ${errorMessage(err)}`);
  }
  const store = createStore(db);
  try {
    store.credentials.seed(readFixtures(config.fixturesPath));
  } catch (err) {
    db.close();
    throw new StartError(errorMessage(err));
  }
  // Resumes the offset saved in the database, so sandbox time carries on where the last run left it.
  const clock = options.clock ?? systemClock(store.clock);
  const logger = options.logger ?? createLogger({ format: config.logFormat, quiet: config.quiet });
  const activity = new ActivityBus();
  // The delivery side first: the outbox the services write to wakes the worker, which signs and
  // shapes each attempt; the services then read its fault rules and its attempts in flight.
  const faults = new FaultInjector({ config, store, clock, activity });
  const signing = webhookSigning({ store, config, clock });
  const worker = new DeliveryWorker({
    store,
    clock,
    config,
    activity,
    logger,
    signing,
    shaper: faults.webhooks,
    webhookCa: options.webhookCa ?? config.webhookCa,
    maxInFlight: options.maxInFlight,
    senderEntry: options.senderEntry,
  });
  const outbox = new Outbox(store, clock, worker);
  // The one PublicUrl the services build links on; startServer sets it once it knows the port.
  const publicUrl = { base: config.publicUrl ?? 'http://127.0.0.1:4010' };
  const deps: ServiceDeps = { config, store, clock, activity, outbox, logger, publicUrl };
  let services: Services;
  try {
    // The --scenario file is read here (the scenario service): a bad one stops the start.
    services = createServices(deps, { faults, signing, inFlight: worker });
  } catch (err) {
    db.close();
    throw err;
  }
  const appDeps: AppDeps = {
    config,
    logger,
    services,
    wake: () => {
      services.jobs.runDue();
      worker.wake();
    },
    forcedScript: createOutcomeOverride(services),
  };
  const app = createApp(appDeps);
  return { db, store, clock, logger, activity, publicUrl, services, worker, app, appDeps };
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (err.code === 'EADDRINUSE')
        reject(new StartError(`port ${port} on ${host} is already in use; stop the other process or pass --port 0 for any free port`));
      else if (err.code === 'EACCES') reject(new StartError(`no permission to listen on ${host}:${port}; use a port above 1024`));
      else if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND')
        reject(new StartError(`cannot listen on host ${host}: not an address of this machine`));
      else reject(new StartError(`cannot listen on ${host}:${port}: ${err.message}`));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/** The HTTP server (HTTPS with --https) of the app, with its slow-client limits. */
function newServer(app: SandboxApp, config: Config, tls: ServingTls | undefined): Server {
  // Node checks the two timeouts below only every connectionsCheckingInterval (30 s by default),
  // which would let a slow client hold a socket for up to 40 s; check every second instead.
  const checkEveryMs = Math.min(1000, config.headersTimeoutMs);
  const server = createAdaptorServer({
    fetch: app.fetch,
    hostname: config.host,
    ...(tls
      ? {
          createServer: createHttpsServer,
          serverOptions: {
            connectionsCheckingInterval: checkEveryMs,
            cert: tls.cert,
            key: tls.key,
            ...TLS_SUITES,
            // The TLS handshake comes before the headers and their timeout: without this, a client
            // that connects and never finishes the handshake holds its socket 120 s (Node's default).
            handshakeTimeout: config.headersTimeoutMs,
          },
        }
      : { serverOptions: { connectionsCheckingInterval: checkEveryMs } }),
  }) as Server;
  // Slow clients may not hold a connection forever (headers within 10 s, whole request within 30 s).
  server.headersTimeout = config.headersTimeoutMs;
  server.requestTimeout = config.requestTimeoutMs;
  server.keepAliveTimeout = 5_000;
  return server;
}

/**
 * Starts a sandbox from a Config and resolves once it answers requests; refuses (StartError) a
 * database file another sandbox has open.
 */
export async function startServer(
  config: Config,
  options: Pick<BuildOptions, 'clock' | 'logger' | 'maxInFlight' | 'senderEntry'> = {},
): Promise<RunningServer> {
  // Before the database is opened: a refused start must not migrate or seed under the running one.
  const lock = await lockDatabase(config.dbPath);
  let built: ReturnType<typeof buildSandbox>;
  let tls: ServingTls | undefined;
  try {
    tls = await servingTls(config.https);
    built = buildSandbox(config, { ...options, webhookCa: deliveryCas(config.webhookCa, tls) });
  } catch (err) {
    await lock?.release();
    throw err;
  }
  const server = newServer(built.app, config, tls);
  let address: AddressInfo;
  try {
    address = await listen(server, config.port, config.host);
  } catch (err) {
    built.db.close();
    await lock?.release();
    throw err;
  }
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${tls ? 'https' : 'http'}://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
  built.publicUrl.base = config.publicUrl ?? url;
  if (lock) lock.url = url;
  built.worker.start();
  built.services.jobs.start();
  const close = closer(built, server, startCheckpointer(built.db), lock);
  return {
    url,
    config,
    tls,
    db: built.db,
    store: built.store,
    clock: built.clock,
    services: built.services,
    worker: built.worker,
    app: built.app,
    close,
  };
}

/** close() of a running sandbox: undoes the start in the reverse order, once however often it is called. */
function closer(
  built: ReturnType<typeof buildSandbox>,
  server: Server,
  checkpointer: ReturnType<typeof startCheckpointer>,
  lock: Awaited<ReturnType<typeof lockDatabase>>,
): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      // Stop claiming webhooks at once; attempts in flight finish (each within the webhook
      // timeout) and are recorded, while the server drains its requests in parallel.
      built.services.jobs.stop();
      const draining = built.worker.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Streams (SSE) and stuck clients get 2 s to finish, then are cut.
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      });
      await draining;
      built.store.batch.flush();
      await checkpointer.stop();
      built.db.close();
      await lock?.release();
    })();
    return closing;
  };
}
