// Starts one sandbox: opens and seeds the database, builds the services and the app, listens, and
// starts the delivery worker and job runner. close() undoes it in the reverse order.
import { createAdaptorServer } from '@hono/node-server';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.js';
import { openDatabase, type Db } from '../store/open-database.js';
import { createStore, type Store } from '../store/store.js';
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
import { NO_TRACER, type Tracer } from '../runtime/tracing.js';
import { VERSION } from '../version.js';
import type { ServiceDeps } from '../services/deps.js';
import { lockDatabase } from './db-lock.js';
import { StartError, errorMessage } from '../errors.js';
import { deliveryCas, servingTls, type ServingTls } from '../tls/serving.js';
import { TLS_SUITES } from '../tls/cipher-suites.js';
import { SNAPSHOT_LIMIT_BYTES } from '../http/control/state.js';
import { FrontListenError, startFrontServer, type FrontAddress, type FrontServer } from './front/front-server.js';
import { dropEarlyFrontThread, frontThreadAvailable, frontThreadWanted, startFrontThreadEarly } from './front/early-thread.js';
import { pendingApp, type Served } from './front/pending-app.js';

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
  /** The HTTP front thread, when HTTP runs on one (server/front/); undefined when it runs on the main thread. */
  front: FrontServer | undefined;
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
  /** Records spans of requests, state changes and webhook attempts (--otlp: loadTracer); none by default. */
  tracer?: Tracer;
}

/**
 * The tracer --otlp asks for: the OpenTelemetry SDK is imported here, only when the flag is set,
 * so a sandbox without it never loads it (its start-up time and memory stay as they were).
 */
export async function loadTracer(config: Pick<Config, 'otlp'>, logger: Logger): Promise<Tracer> {
  if (config.otlp === undefined) return NO_TRACER;
  const { otlpTracer } = await import('../runtime/otlp-tracer.js');
  return otlpTracer(config.otlp, VERSION, logger);
}

/** Everything but the listening socket: used by startServer and by route tests. */
export function buildSandbox(config: Config, options: BuildOptions = {}) {
  let db: Db;
  try {
    db = options.db ?? openDatabase(config.dbPath);
  } catch (err) {
    throw new StartError(`cannot open the database at ${config.dbPath}: ${errorMessage(err)}`);
  }
  // The worker, made below before anything can make a delivery due, reads again where a write made one due.
  const store = createStore(db, { onDeliveryDue: (at, rowid, url) => worker.deliveryDue(at, rowid, url) });
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
    tracer: options.tracer,
  });
  const outbox = new Outbox(store, clock, worker, options.tracer);
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
    wakeDeliveries: () => worker.wake(),
    forcedScript: createOutcomeOverride(services),
    tracer: options.tracer,
  };
  const app = createApp(appDeps);
  return { db, store, clock, logger, activity, publicUrl, services, worker, app, appDeps, tracer: options.tracer ?? NO_TRACER };
}

/** What a listen that failed with `code` tells the user. */
function listenError(code: string | undefined, message: string, port: number, host: string): StartError {
  if (code === 'EADDRINUSE')
    return new StartError(`port ${port} on ${host} is already in use; stop the other process or pass --port 0 for any free port`);
  if (code === 'EACCES') return new StartError(`no permission to listen on ${host}:${port}; use a port above 1024`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new StartError(`cannot listen on host ${host}: not an address of this machine`);
  return new StartError(`cannot listen on ${host}:${port}: ${message}`);
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(listenError(err.code, err.message, port, host));
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
  options: Pick<BuildOptions, 'clock' | 'logger' | 'maxInFlight' | 'senderEntry'> & {
    /** HTTP on a front thread, or on the main thread; by default as config.frontThread says (frontThreadWanted). Never without the thread's compiled entry. */
    front?: boolean;
  } = {},
): Promise<RunningServer> {
  const front = options.front === undefined ? frontThreadWanted(config.frontThread) : options.front && frontThreadAvailable();
  // The thread boots while the app is built below (the CLI starts it sooner still); it listens once told to.
  if (front) startFrontThreadEarly('on');
  else dropEarlyFrontThread();
  // Before the database is opened: a refused start must not migrate or seed under the running one.
  let lock: Awaited<ReturnType<typeof lockDatabase>>;
  let built: ReturnType<typeof buildSandbox>;
  let tls: ServingTls | undefined;
  const served = pendingApp();
  let frontListening: Promise<Listening> | undefined;
  try {
    lock = await lockDatabase(config.dbPath);
    tls = await servingTls(config.https);
    const logger = options.logger ?? createLogger({ format: config.logFormat, quiet: config.quiet });
    // The front thread listens while the app is built, its requests waiting for the app: told to
    // after the build, its hand-off (the settings, the listen, its answer) took 10-13 ms of the first answer.
    if (front) {
      frontListening = listenFront(config, tls, served, logger);
      // Awaited below, or closed if the build fails: never an unhandled rejection meanwhile.
      frontListening.catch(() => {});
    }
    const tracer = await loadTracer(config, logger);
    built = buildSandbox(config, { ...options, logger, tracer, webhookCa: deliveryCas(config.webhookCa, tls) });
  } catch (err) {
    served.failed();
    await frontListening?.then(
      (listening) => listening.close(0),
      () => {},
    );
    dropEarlyFrontThread();
    await lock?.release();
    throw err;
  }
  served.built({ fetch: built.app.fetch, journal: (rows) => built.services.journal.recordRows(rows) });
  let listening: Listening;
  try {
    listening = await (frontListening ?? listenOn(built, config, tls));
  } catch (err) {
    built.db.close();
    await lock?.release();
    throw err;
  }
  const { address } = listening;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${tls ? 'https' : 'http'}://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
  built.publicUrl.base = config.publicUrl ?? url;
  if (lock) lock.url = url;
  built.worker.start();
  built.services.jobs.start();
  const close = closer(built, listening, lock);
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
    front: listening.front,
    close,
  };
}

/** Where a sandbox listens: its address, and how it stops (requests in flight finish; streams get `graceMs`). */
interface Listening {
  address: AddressInfo | FrontAddress;
  close(graceMs: number): Promise<void>;
  front?: FrontServer;
}

/**
 * Listens on --host/--port on a front thread, which parses HTTP and hands the main thread each
 * request (server/front/): from the moment it listens, its requests go to `served`.
 */
async function listenFront(config: Config, tls: ServingTls | undefined, served: Served, logger: Logger): Promise<Listening> {
  try {
    const front = await startFrontServer(
      {
        host: config.host,
        port: config.port,
        headersTimeoutMs: config.headersTimeoutMs,
        requestTimeoutMs: config.requestTimeoutMs,
        keepAliveTimeoutMs: 5_000,
        bodyLimitBytes: config.bodyLimitBytes,
        largeBodies: [{ path: '/_sandbox/import', limitBytes: SNAPSHOT_LIMIT_BYTES }],
        tls: tls ? { cert: tls.cert, key: tls.key } : null,
      },
      served.fetch,
      logger,
      served.journal,
    );
    return { address: front.address, close: (graceMs) => front.close(graceMs), front };
  } catch (err) {
    if (err instanceof FrontListenError) throw listenError(err.code, err.message, config.port, config.host);
    throw err;
  }
}

/** Listens on --host/--port with node:http on the main thread. */
async function listenOn(built: ReturnType<typeof buildSandbox>, config: Config, tls: ServingTls | undefined): Promise<Listening> {
  const server = newServer(built.app, config, tls);
  const address = await listen(server, config.port, config.host);
  return {
    address,
    close: (graceMs) =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), graceMs).unref();
      }),
  };
}

/** close() of a running sandbox: undoes the start in the reverse order, once however often it is called. */
function closer(
  built: ReturnType<typeof buildSandbox>,
  listening: Listening,
  lock: Awaited<ReturnType<typeof lockDatabase>>,
): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      // Stop claiming webhooks at once; attempts in flight finish (each within the webhook
      // timeout) and are recorded, while the server drains its requests in parallel.
      built.services.jobs.stop();
      const draining = built.worker.stop();
      // Streams (SSE) and stuck clients get 2 s to finish, then are cut.
      await listening.close(2000);
      await draining;
      // The requests answered in this last turn join the final batch (the journal queues a turn's rows).
      built.services.journal.flush();
      built.store.batch.flush();
      // The spans of the last requests and attempts go out before the process may end (--otlp).
      await built.tracer.shutdown();
      built.db.close();
      await lock?.release();
    })();
    return closing;
  };
}
