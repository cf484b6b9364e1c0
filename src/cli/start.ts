// `sandbox start`: runs the sandbox in the foreground with a banner of its URL and credentials,
// and shuts down cleanly (exit status 0) on SIGINT/SIGTERM/SIGHUP, on `sandbox stop` (its
// --pid-file), and when the process that started it exits (parent-watch.ts; --keep-running not).
import type { Command } from 'commander';
import kleur from 'kleur';
import { loadConfig, START_DEFAULTS, START_ENV, type ConfigFlags } from '../config.js';
import { formatDuration } from '../domain/duration.js';
import { OTP_PASS } from '../domain/outcomes.js';
import { standardSecret } from '../signatures/signing.js';
import { orList, SIGNATURE_MODES, type SignatureMode } from '../domain/vocabularies.js';
import type { RunningServer } from '../server/start-server.js';
import { startFrontThreadEarly } from '../server/front/early-thread.js';
import { shippedScenarioNames } from '../contracts/shipped-scenarios.js';
import { VERSION } from '../version.js';
import type { CliIo } from './io.js';
import { watchParent } from './parent-watch.js';
import { DEFAULT_PID_FILE, removeOwnPidFile, writePidFile } from './pid-file.js';
import { clearStaleReadyFile, removeOwnReadyFile, writeReadyFile } from './ready-file.js';
import { tierUpSooner } from '../runtime/tier-up.js';

/** The start banner: where the sandbox is and the credentials to use. */
export function banner(running: RunningServer): string {
  const { store, config } = running;
  const lines = [
    `${kleur.bold().cyan('paysandbox')} ${VERSION} ${kleur.yellow('test mode')}`,
    `  ${kleur.dim('API       ')} ${running.url}`,
    `  ${kleur.dim('Dashboard ')} ${running.url}/_sandbox/`,
    `  ${kleur.dim('Database  ')} ${config.dbPath}`,
    ...tlsLines(running),
    `  ${kleur.dim('Webhooks  ')} retry ${config.retry.length ? config.retry.map(formatDuration).join(', ') : 'none'}; signed ${config.signatureMode === 'standard' ? 'webhook-signature' : `X-${config.headerPrefix}-Signature`} (${config.signatureMode})`,
    '',
  ];
  const keys = store.credentials.apiKeys();
  // Merchants made on demand (one per test worker) can be many: counted, not listed.
  const created = store.credentials.merchants().filter((m) => m.createdBy === 'api').length;
  for (const merchant of store.credentials.merchants().filter((m) => m.createdBy !== 'api')) {
    lines.push(`  ${kleur.bold(merchant.name)} ${kleur.dim(`(${merchant.id})`)}`);
    for (const t of store.credentials.terminals().filter((x) => x.merchantId === merchant.id)) {
      lines.push(
        `    terNO ${kleur.green(String(t.terNo))}  public_key ${kleur.green(t.publicKey)}  private_key ${kleur.green(t.privateKey)}`,
      );
    }
    const merchantKeys = keys.filter((k) => k.merchantId === merchant.id).map((k) => kleur.green(k.key));
    lines.push(
      `    API key ${merchantKeys.join(', ') || kleur.dim('none')}  webhook secret ${kleur.green(config.signatureMode === 'standard' ? standardSecret(merchant.webhookSecret) : merchant.webhookSecret)}`,
    );
  }
  if (created > 0) lines.push(`  ${kleur.dim(`${created} merchant${created === 1 ? '' : 's'} created on demand: sandbox merchants list`)}`);
  lines.push('', `  Test cards: 4242424242424242 approves at once, 4000000000003220 asks for OTP ${kleur.bold(OTP_PASS)}; see README.`, '');
  return lines.join('\n');
}

/** The banner's HTTPS lines: the certificate served and, for the local CA's, how each client trusts it. */
function tlsLines(running: RunningServer): string[] {
  const { tls } = running;
  if (!tls) return [];
  if (!tls.caFile) return [`  ${kleur.dim('HTTPS     ')} certificate ${tls.certFile} (--cert)`];
  const ca = tls.caFile;
  // A new CA must be trusted again wherever the old one was: say so before how to trust it.
  const made = tls.newCa
    ? [
        `  ${kleur.dim('New CA    ')} ${kleur.yellow(`made a new local CA (${tls.newCa})`)}`,
        `  ${kleur.dim('          ')} ${kleur.yellow(`trust ${ca} as below, in every client and browser that trusted a CA of this folder before`)}`,
      ]
    : [];
  return [
    ...made,
    `  ${kleur.dim('HTTPS     ')} certificate ${tls.certFile}, signed by the local CA ${kleur.bold(ca)} (for localhost, 127.0.0.0/8 and ::1 only)`,
    `  ${kleur.dim('  trust it')} Node: NODE_EXTRA_CA_CERTS=${ca}   curl: curl --cacert ${ca}`,
    `  ${kleur.dim('          ')} PHP: CURLOPT_CAINFO => '${ca}' or stream context ['ssl' => ['cafile' => '${ca}']]`,
    `  ${kleur.dim('          ')} Python: ssl.create_default_context(cafile='${ca}') or SSL_CERT_FILE=${ca}`,
  ];
}

/** What each --signature mode signs, for the help. */
const SIGNS: Record<SignatureMode, string> = {
  plain: 'HMAC of the body',
  timestamped: 'HMAC of "<timestamp>.<body>"',
  standard: 'Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature',
};

// No commander defaults: a default given to commander would always win over the environment.
// The defaults live in START_DEFAULTS (config.ts); the help shows them with each variable.
function help(key: keyof ConfigFlags, text: string, defaultText?: string): string {
  const shown = defaultText ?? (START_DEFAULTS as ConfigFlags)[key];
  return `${text} (${shown === undefined ? '' : `default: ${shown}, `}env: ${START_ENV[key]})`;
}

/** The flags of `sandbox start`: the configuration's, and what the process does with files and its parent. */
type StartFlags = ConfigFlags & { readyFile?: string; pidFile?: string | true; keepRunning?: boolean };

/** Adds `sandbox start`. */
export function addStartCommand(program: Command, io: CliIo): void {
  const command = program.command('start').description('run the sandbox (HTTP API, pages, webhook delivery) in the foreground');
  addServerOptions(command);
  addBehaviourOptions(command);
  addTlsOptions(command);
  addProcessOptions(command);
  command
    .addHelpText(
      'after',
      '\nEach option is taken from its flag, else its SANDBOX_* variable, else its default.\nThe sandbox stops cleanly (exit status 0) on SIGTERM, SIGINT or SIGHUP, and when the process that started it exits\n(its parent; for npx and npm start, npm itself), unless --keep-running.',
    )
    .action((flags: StartFlags) => runStart(flags, io));
}

/** Where the sandbox listens, what it stores and seeds, and how it signs and guards. */
function addServerOptions(command: Command): void {
  command
    .option('-p, --port <port>', help('port', 'port to listen on; 0 picks a free port'))
    .option('--host <host>', help('host', 'address to listen on'))
    .option('--db <path>', help('db', 'SQLite database file, or :memory:'))
    .option('--public-url <url>', help('publicUrl', 'base URL for authurl, authstatus and hosted pages', 'from host and port'))
    .option('--fixtures <file>', help('fixtures', 'merchants, terminals and keys to seed', 'the shipped fixtures/default.json'))
    .option('--retry <profile>', help('retry', 'webhook retries: dev, realistic, none, or a list like 1s,5s,1m'))
    .option('--header-prefix <name>', help('headerPrefix', 'the word in X-<name>-Signature and the other webhook headers'))
    .option('--signature <mode>', help('signature', orList(SIGNATURE_MODES.map((mode) => `${mode} (${SIGNS[mode]})`))))
    .option('--control-token <token>', help('controlToken', 'require this bearer token on /_sandbox/ (and allow non-loopback callers)'))
    .option(
      '--control-open',
      help(
        'controlOpen',
        'let callers from any address use /_sandbox/ without a token (Host and Origin checks still hold): for a private network such as a compose project or a CI job; listening beyond loopback (--host 0.0.0.0) needs this or --control-token; the variable takes 1 or true',
        'off',
      ),
    )
    .option(
      '--allowed-host <host>',
      help(
        'allowedHost',
        "another Host name (optionally :port) /_sandbox/ answers to besides loopback and --public-url's; repeatable, or comma-separated in the variable",
        'none',
      ),
      (host: string, hosts: string[] = []) => [...hosts, host],
    );
}

/** How long pages, webhooks and faults take, and the scripted outcomes. */
function addBehaviourOptions(command: Command): void {
  command
    .option('--challenge-lifetime <duration>', help('challengeLifetime', 'how long a 3-D Secure page waits before Expired'))
    .option('--upi-window <duration>', help('upiWindow', 'how long a UPI collect request waits'))
    .option(
      '--webhook-timeout <duration>',
      help('webhookTimeout', 'how long a webhook POST may take to answer, at most 60s (a stop waits this long for attempts in flight)'),
    )
    .option(
      '--faults <spec>',
      help(
        'faults',
        'inject webhook and API faults, e.g. "duplicate=2,delay=2s", "url=http://127.0.0.1:3000/hook:fail-first=2" or "route=POST /v1/payments:status=503,p=0.2" (docs/api-faults.md)',
      ),
    )
    .option('--fault-seed <n>', help('faultSeed', 'seed of random faults (fail=P, p=P) so a run repeats exactly'))
    .option(
      '--fault-timeout <duration>',
      help('faultTimeout', 'how long an API timeout fault (X-Sandbox-Fault: timeout) holds the connection before closing it, at most 10m'),
    )
    .option(
      '--scenario <name|file>',
      help(
        'scenario',
        `scripted outcomes for CI: a shipped scenario by name (${shippedScenarioNames().join(', ')}) or a file path (docs/scenarios.md)`,
      ),
    )
    .option(
      '--auto-authenticate <verdict>',
      help(
        'autoAuthenticate',
        'complete every 3-D Secure/bank challenge by itself: approve or decline, optionally after sandbox time, e.g. approve:5s',
      ),
    )
    .option(
      '--chargeback-delay <duration>',
      help('chargebackDelay', 'sandbox time after approval or capture before test card 4000000000000259 opens its chargeback'),
    )
    .option('--sepa-delay <duration>', help('sepaDelay', 'sandbox time before the slow SEPA test IBAN AT321904300235473204 settles'))
    .option(
      '--authorization-lifetime <duration>',
      help('authorizationLifetime', 'sandbox time a /v1/ payment made with capture: false stays capturable before it lapses to expired'),
    )
    .option(
      '--journal-size <n>',
      help('journalSize', 'how many requests the request journal keeps, masked (sandbox requests, docs/journal.md); 0 keeps none'),
    )
    .option('--journal-age <duration>', help('journalAge', 'how long the request journal keeps a request (wall-clock time)'))
    .option(
      '--otlp <url>',
      help(
        'otlp',
        'send spans of API requests, state changes and webhook attempts to this OTLP/HTTP collector, e.g. http://127.0.0.1:4318 (docs/tracing.md)',
        'off',
      ),
    );
}

/** HTTPS: how it serves TLS, and which CAs its webhook deliveries trust (docs/https.md). */
function addTlsOptions(command: Command): void {
  command
    .option(
      '--https',
      help(
        'https',
        'serve over TLS with a certificate from a local CA made under .sandbox/tls/ (the banner says how to trust it); the variable takes 1 or true',
        'off',
      ),
    )
    .option('--cert <file>', help('cert', 'serve over TLS with this PEM certificate (e.g. made by mkcert); needs --key', 'none'))
    .option('--key <file>', help('key', "the PEM private key of --cert's certificate", 'none'))
    .option(
      '--webhook-ca <file>',
      help(
        'webhookCa',
        'also trust this PEM CA certificate for https:// webhook receivers; repeatable, or comma-separated in the variable',
        'none',
      ),
      (file: string, files: string[] = []) => [...files, file],
    );
}

/** The files it writes, when it stops, and what it prints. */
function addProcessOptions(command: Command): void {
  command
    .option(
      '--ready-file <file>',
      "write the base URL to this file once the sandbox answers (a dead sandbox's file is removed at start), removed when it exits; sandbox wait --ready-file reads it",
    )
    .option(
      '--pid-file [file]',
      `write the process id to this file once the sandbox answers, removed when it exits; sandbox stop reads it (default file: ${DEFAULT_PID_FILE})`,
    )
    .option('--keep-running', 'keep running when the process that started it exits (stop it with sandbox stop or a signal)')
    .option(
      '-q, --quiet',
      help('quiet', 'no banner, request or webhook log lines (the Listening on line stays); the variable takes 1 or true', 'off'),
    )
    .option('--log-format <format>', help('logFormat', 'pretty or json'))
    .option(
      '--front-thread <mode>',
      help('frontThread', 'parse HTTP on a thread of its own: on, off, or auto (on with more than two cores)'),
    );
}

let afterStart: (() => void) | undefined;

/**
 * Runs `then` once a start has printed its Listening line: dist/start.js saves the code cache there,
 * when the start's code has been compiled (runtime/compiled-bundle.ts).
 */
export function whenStarted(then: () => void): void {
  afterStart = then;
}

/** Starts the sandbox and waits until it is stopped. */
async function runStart(flags: StartFlags, io: CliIo): Promise<void> {
  const { readyFile, pidFile, keepRunning, ...configFlags } = flags;
  const config = loadConfig(configFlags);
  const pidPath = pidFile === true ? DEFAULT_PID_FILE : pidFile;
  // A dead sandbox's file would name it to whoever reads the file before this one answers.
  if (readyFile) await clearStaleReadyFile(readyFile);
  // The HTTP front thread boots while the server's modules load (server/front/early-thread.ts).
  startFrontThreadEarly(config.frontThread);
  // Loaded here, not at the top: every other command (and --help) runs without the server's modules.
  const { startServer } = await import('../server/start-server.js');
  const running = await startServer(config);
  // Signals are handled before anything is printed: a script that sends SIGINT the moment it
  // reads "Listening on" must never meet Node's default handler (death by signal, no clean close).
  let resolveStopped: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) {
      // A second signal means "now": every acknowledged payment and queued webhook is already committed.
      io.err(`${reason} again: exiting without waiting`);
      process.exit(130);
    }
    stopping = true;
    unwatch();
    // The sandbox takes no new connections from here on, so the file no longer names one that answers.
    if (readyFile) removeOwnReadyFile(readyFile, running.url);
    io.out(kleur.dim(`${reason}: finishing in-flight webhooks and closing the database...`));
    const exit = () => {
      if (pidPath) removeOwnPidFile(pidPath);
      resolveStopped();
      // Lookups of unreachable webhook hosts can keep the event loop alive for minutes after
      // the sandbox itself is closed; nothing of ours is left, so leave now.
      setTimeout(() => process.exit(process.exitCode ?? 0), 100).unref();
    };
    running.close().then(exit, exit);
  };
  const unwatch = keepRunning
    ? () => {}
    : watchParent((gone) => stop(`the process that started the sandbox (${gone.name}, pid ${gone.pid}) exited`));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stop(signal));
  if (!config.quiet) io.out(banner(running));
  io.out(`Listening on ${running.url}`);
  try {
    if (pidPath) writePidFile(pidPath);
    if (readyFile) writeReadyFile(readyFile, running.url);
  } catch (err) {
    // Never leave a listening sandbox (or a file naming it) behind a failed start.
    unwatch();
    if (pidPath) removeOwnPidFile(pidPath);
    await running.close();
    throw err;
  }
  // After this turn: a request already waiting is answered first. The code cache is written before
  // V8's tier-up changes, as a cache is checked against the flags it was made under.
  setImmediate(() => {
    afterStart?.();
    tierUpSooner();
  });
  await stopped;
}
