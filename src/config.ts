// loadConfig is the only reader of process.env: every other module receives a frozen Config.
// Each docs/decisions.md choice that a merchant might want to change is a field here with a flag.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SandboxError } from './errors.js';
import { parseRetryProfile, type RetryProfile } from './domain/retry-profile.js';
import { parseDuration } from './domain/duration.js';
import { parseFaultSpec } from './domain/fault-spec.js';
import { parseAutoAuthenticate, type AutoAuthenticate } from './domain/outcome-spec.js';
import { CODE_DIR } from './code-dir.js';
import { SIGNATURE_MODES, type SignatureMode } from './domain/vocabularies.js';
import { tlsSettings, type HttpsSetting } from './tls/settings.js';
import { databaseFolderProblem } from './domain/database-path.js';

export type LogFormat = 'pretty' | 'json';
export type { SignatureMode };

/** Everything the server needs to know, fixed at start. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dbPath: string;
  /** Base of authurl, authstatus and hosted page URLs; derived from host and port when unset. */
  readonly publicUrl: string | undefined;
  readonly fixturesPath: string;
  readonly retry: RetryProfile;
  readonly quiet: boolean;
  readonly logFormat: LogFormat;
  /** The word in X-<prefix>-Signature and the other webhook headers. */
  readonly headerPrefix: string;
  readonly signatureMode: SignatureMode;
  /** Bearer token that lets non-loopback callers use /_sandbox/; loopback needs none. */
  readonly controlToken: string | undefined;
  /** --control-open: callers from any address may use /_sandbox/ without a token (Host and Origin checks still hold). */
  readonly controlOpen: boolean;
  /** Host names (optionally :port) /_sandbox answers to besides loopback and --public-url's host. */
  readonly allowedHosts: readonly string[];
  /** How long a 3-D Secure challenge waits before the transaction is Expired (22). */
  readonly challengeLifetimeMs: number;
  /** How long a UPI collect request waits for the customer. */
  readonly upiCollectWindowMs: number;
  /** Per-attempt timeout of a webhook POST (spec §8: 2xx within 5 seconds). */
  readonly webhookTimeoutMs: number;
  /** Largest request body accepted, in bytes. */
  readonly bodyLimitBytes: number;
  /** A client must send its request headers within this time (slowloris guard). */
  readonly headersTimeoutMs: number;
  /** A client must send its whole request within this time. */
  readonly requestTimeoutMs: number;
  readonly faults: string | undefined;
  /** Seed of the fault injector's randomness (fail=P); random when unset. */
  readonly faultSeed: number | undefined;
  /** How long an API `timeout` fault holds a connection without an answer before closing it. */
  readonly faultTimeoutMs: number;
  /**
   * --scenario as given (a file path or a shipped scenario's name) and the flag or variable that set
   * it; the scenario service resolves and reads it when the sandbox is built (contracts/scenario-file.ts).
   */
  readonly scenario: Readonly<{ file: string; from: string }> | undefined;
  /** --auto-authenticate, parsed: every new challenge completes by itself after the delay. */
  readonly autoAuthenticate: AutoAuthenticate | undefined;
  /** How long after approval (S2S) or capture (/v1/) the chargeback test card 4000000000000259 opens its chargeback. */
  readonly chargebackDelayMs: number;
  /** How long the slow SEPA test IBAN AT321904300235473204 takes to settle. */
  readonly sepaDelayMs: number;
  /** How long a /v1/ authorisation with capture: false stays capturable before it lapses (expired). */
  readonly authorizationLifetimeMs: number;
  /** --https or --cert/--key: serve TLS (with the merchant's certificate, or else the local CA's); undefined for plain HTTP. */
  readonly https: HttpsSetting;
  /** PEM text of each --webhook-ca file: CAs webhook deliveries trust besides the system's. */
  readonly webhookCa: readonly string[];
  /** --journal-size: how many requests the request journal keeps (the oldest go first); 0 keeps none. */
  readonly journalSize: number;
  /** --journal-age: how long (wall-clock ms) the request journal keeps a request. */
  readonly journalAgeMs: number;
  /** --otlp: the OTLP/HTTP traces endpoint spans are sent to (docs/tracing.md); undefined sends none and loads no SDK. */
  readonly otlp: string | undefined;
  /** --front-thread: HTTP on a thread of its own (on), on the main thread with SQLite (off), or on only with more than two cores (auto). */
  readonly frontThread: FrontThreadSetting;
}

/** Where `sandbox start` parses HTTP (server/front/early-thread.ts frontThreadWanted). */
export type FrontThreadSetting = 'auto' | 'on' | 'off';

/** Flags as commander gives them (all optional strings or booleans). */
export interface ConfigFlags {
  port?: string | number;
  host?: string;
  db?: string;
  publicUrl?: string;
  fixtures?: string;
  retry?: string;
  quiet?: boolean;
  logFormat?: string;
  headerPrefix?: string;
  signature?: string;
  controlToken?: string;
  controlOpen?: boolean;
  /** --allowed-host, repeatable. */
  allowedHost?: string | string[];
  challengeLifetime?: string;
  upiWindow?: string;
  webhookTimeout?: string;
  faults?: string;
  faultSeed?: string | number;
  faultTimeout?: string;
  scenario?: string;
  autoAuthenticate?: string;
  chargebackDelay?: string;
  sepaDelay?: string;
  authorizationLifetime?: string;
  https?: boolean | string;
  cert?: string;
  key?: string;
  /** --webhook-ca, repeatable. */
  webhookCa?: string | string[];
  journalSize?: string | number;
  journalAge?: string;
  frontThread?: string;
  otlp?: string;
}

/** The fixtures file the sandbox seeds from when --fixtures is not given. */
export const DEFAULT_FIXTURES = fileURLToPath(new URL('../fixtures/default.json', CODE_DIR));

/** The longest --fault-timeout: a held connection is a socket and a timer until it ends. */
export const MAX_FAULT_TIMEOUT_MS = 10 * 60_000;

/**
 * The longest --webhook-timeout. A stop (SIGTERM, `sandbox stop`) waits for the attempts in flight,
 * each for up to this long; the gateway's own limit is 5 s, and the webhook audit's --timeout stops at 60 s too.
 */
export const MAX_WEBHOOK_TIMEOUT_MS = 60_000;

/** The most requests --journal-size keeps: rows of a few KiB each, so about a gigabyte at most. */
export const MAX_JOURNAL_SIZE = 1_000_000;

/** The one set of defaults of `sandbox start`, as a user would type them (the library overrides some for tests). */
export const START_DEFAULTS = Object.freeze({
  port: '4010',
  host: '127.0.0.1',
  db: '.sandbox/sandbox.db',
  retry: 'dev',
  logFormat: 'pretty',
  headerPrefix: 'Sandbox',
  signature: 'plain',
  challengeLifetime: '15m',
  upiWindow: '5m',
  webhookTimeout: '5s',
  chargebackDelay: '30s',
  sepaDelay: '3m',
  authorizationLifetime: '7d',
  faultTimeout: '30s',
  journalSize: '10000',
  journalAge: '24h',
  frontThread: 'auto',
} satisfies ConfigFlags);

/** The environment variable of each start option; a flag wins over it, and it wins over the default. */
export const START_ENV: Readonly<Record<keyof ConfigFlags, string>> = Object.freeze({
  port: 'SANDBOX_PORT',
  host: 'SANDBOX_HOST',
  db: 'SANDBOX_DB',
  publicUrl: 'SANDBOX_PUBLIC_URL',
  fixtures: 'SANDBOX_FIXTURES',
  retry: 'SANDBOX_RETRY',
  quiet: 'SANDBOX_QUIET',
  logFormat: 'SANDBOX_LOG_FORMAT',
  headerPrefix: 'SANDBOX_HEADER_PREFIX',
  signature: 'SANDBOX_SIGNATURE',
  controlToken: 'SANDBOX_CONTROL_TOKEN',
  controlOpen: 'SANDBOX_CONTROL_OPEN',
  allowedHost: 'SANDBOX_ALLOWED_HOSTS',
  challengeLifetime: 'SANDBOX_CHALLENGE_LIFETIME',
  upiWindow: 'SANDBOX_UPI_WINDOW',
  webhookTimeout: 'SANDBOX_WEBHOOK_TIMEOUT',
  faults: 'SANDBOX_FAULTS',
  faultSeed: 'SANDBOX_FAULT_SEED',
  faultTimeout: 'SANDBOX_FAULT_TIMEOUT',
  scenario: 'SANDBOX_SCENARIO',
  autoAuthenticate: 'SANDBOX_AUTO_AUTHENTICATE',
  chargebackDelay: 'SANDBOX_CHARGEBACK_DELAY',
  sepaDelay: 'SANDBOX_SEPA_DELAY',
  authorizationLifetime: 'SANDBOX_AUTHORIZATION_LIFETIME',
  https: 'SANDBOX_HTTPS',
  cert: 'SANDBOX_TLS_CERT',
  key: 'SANDBOX_TLS_KEY',
  webhookCa: 'SANDBOX_WEBHOOK_CA',
  journalSize: 'SANDBOX_JOURNAL_SIZE',
  journalAge: 'SANDBOX_JOURNAL_AGE',
  frontThread: 'SANDBOX_FRONT_THREAD',
  otlp: 'SANDBOX_OTLP',
});

/** The variables of the commands that talk to a running sandbox (--url, --control-token); commander reads them. */
export const CLIENT_ENV = Object.freeze({ url: 'SANDBOX_URL', controlToken: 'SANDBOX_CONTROL_TOKEN' });

/** The flag a user types for an option key: log-format for logFormat. */
function flagOf(key: keyof ConfigFlags): string {
  return key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** One option's value and where it came from ("--port", "SANDBOX_PORT" or "the default"), so an error names what the user set. */
type Setting<T> = { value: T; from: string };

/** An option's text: one with a default always has one. */
type TextOf<K extends keyof ConfigFlags> = K extends keyof typeof START_DEFAULTS ? string : string | undefined;

function bad(key: keyof ConfigFlags, from: string, message: string): never {
  // A default is never bad, so `from` is the flag or the variable the user set.
  throw new SandboxError('parameter_invalid', `${from} ${message}`, flagOf(key));
}

/** Reads each option resolved (flag > environment > default) and refuses a bad value naming where it came from. */
function options(flags: ConfigFlags, env: NodeJS.ProcessEnv) {
  // An empty variable counts as unset (CI templates often export SANDBOX_X= with nothing after it).
  function setting<K extends keyof ConfigFlags>(key: K): Setting<ConfigFlags[K] | string | undefined> {
    if (flags[key] !== undefined) return { value: flags[key], from: `--${flagOf(key)}` };
    const fromEnv = env[START_ENV[key]];
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, from: START_ENV[key] };
    return { value: (START_DEFAULTS as ConfigFlags)[key], from: 'the default' };
  }
  const text = <K extends keyof ConfigFlags>(key: K) => setting(key) as Setting<TextOf<K>>;
  function oneOf<T extends string>(key: keyof ConfigFlags, allowed: readonly T[]): T {
    const { value, from } = text(key);
    if (!allowed.includes(value as T)) bad(key, from, `must be ${allowed.join(' or ')}, got "${value}"`);
    return value as T;
  }
  function duration(key: keyof typeof START_DEFAULTS): number {
    const { value, from } = text(key);
    const ms = parseDuration(value);
    if (ms === undefined || ms <= 0) bad(key, from, `must be a duration like 30s, 15m or 2h, got "${value}"`);
    return ms;
  }
  // --https, --cert, --key and --webhook-ca give two fields but are read together, once (files are read then).
  let tls: ReturnType<typeof tlsSettings> | undefined;
  const tlsOnce = () =>
    (tls ??= tlsSettings({ https: setting('https'), cert: text('cert'), key: text('key'), webhookCa: setting('webhookCa') }, bad));
  /** The option's text, refused when problem(text) names what is wrong with it. */
  function checked<K extends keyof ConfigFlags>(key: K, problem: (value: TextOf<K>) => string | undefined): TextOf<K> {
    const { value, from } = text(key);
    const wrong = problem(value);
    if (wrong) bad(key, from, wrong);
    return value;
  }
  /** A switch: the flag gives a boolean, the variable a string (1, true, 0 or false). */
  function flag(key: 'quiet' | 'controlOpen'): boolean {
    const on: unknown = checked(key, (v) =>
      typeof v !== 'string' || ['1', 'true', '0', 'false'].includes(v) ? undefined : `must be 1, true, 0 or false, got "${v}"`,
    );
    return on === true || on === '1' || on === 'true';
  }
  return { setting, text, oneOf, duration, checked, flag, tls: tlsOnce };
}
type Options = ReturnType<typeof options>;

const MUST_BE_HOST =
  'must be a host name or address, optionally with a port, such as sandbox.internal or 192.168.1.5:4010 (no scheme or path)';
const MUST_BE_PORT = 'must be a whole number from 0 to 65535 (0 picks a free port)';
const isWhole = (n: number, max: number) => Number.isInteger(n) && n >= 0 && n <= max;

/** The comma-separated, repeatable --allowed-host list, each checked. */
function allowedHosts(o: Options): readonly string[] {
  const allowed = o.setting('allowedHost');
  // String() of the repeated flag's array joins it with commas, so both forms split alike.
  const hosts = String(allowed.value ?? '')
    .split(',')
    .map((host) => host.trim())
    .filter((host) => host !== '');
  for (const host of hosts)
    if (!/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(host)) bad('allowedHost', allowed.from, `${MUST_BE_HOST}, got "${host}"`);
  return Object.freeze(hosts);
}

/** The table of options: how each Config field is read, in this order (when several are bad, the first is reported). */
const OPTIONS: { readonly [F in keyof Config]: (o: Options) => Config[F] } = {
  port: (o) => Number(o.checked('port', (v) => (v !== '' && isWhole(Number(v), 65535) ? undefined : `${MUST_BE_PORT}, got "${v}"`))),
  host: (o) => o.checked('host', (v) => (v.trim() ? undefined : 'must be an address such as 127.0.0.1 or 0.0.0.0')),
  dbPath: (o) =>
    o.checked('db', (v) => (v.trim() ? databaseFolderProblem(v, process.cwd(), existsSync) : 'must be a file path or :memory:')),
  logFormat: (o) => o.oneOf('logFormat', ['pretty', 'json'] as const),
  signatureMode: (o) => o.oneOf('signature', SIGNATURE_MODES),
  headerPrefix: (o) =>
    o.checked('headerPrefix', (v) =>
      /^[A-Za-z][A-Za-z0-9]{0,31}$/.test(v) ? undefined : 'must be letters and digits, starting with a letter, like Sandbox',
    ),
  publicUrl: (o) => {
    const url = o.checked('publicUrl', (v) =>
      v === undefined || /^https?:\/\/[^\s/]+/.test(v) ? undefined : `must be an http(s) URL like http://localhost:4010, got "${v}"`,
    );
    return url?.replace(/\/+$/, '');
  },
  retry: (o) => {
    const { value, from } = o.text('retry');
    return parseRetryProfile(value) ?? bad('retry', from, `must be dev, realistic, none or a list like 1s,5s,1m, got "${value}"`);
  },
  quiet: (o) => o.flag('quiet'),
  controlToken: (o) => o.text('controlToken').value || undefined,
  controlOpen: (o) => o.flag('controlOpen'),
  allowedHosts,
  faults: (o) => o.checked('faults', (v) => (v ? (parseFaultSpec(v) as { problem?: string }).problem : undefined)) || undefined,
  faultSeed: (o) => {
    const seed = o.checked('faultSeed', (v) =>
      v === undefined || isWhole(Number(v), 0xffffffff) ? undefined : `must be a whole number from 0 to 4294967295, got "${v}"`,
    );
    return seed === undefined ? undefined : Number(seed);
  },
  faultTimeoutMs: (o) => {
    const { value, from } = o.text('faultTimeout');
    const ms = o.duration('faultTimeout');
    if (ms > MAX_FAULT_TIMEOUT_MS)
      bad('faultTimeout', from, `must be at most 10m (the longest an API timeout fault holds a connection), got "${value}"`);
    return ms;
  },
  autoAuthenticate: (o) => {
    const { value, from } = o.text('autoAuthenticate');
    const must = `must be approve or decline, optionally with a delay like approve:5s, got "${value}"`;
    return value === undefined ? undefined : (parseAutoAuthenticate(value) ?? bad('autoAuthenticate', from, must));
  },
  scenario: (o) => {
    const file = o.checked('scenario', (v) => (v?.trim() === '' ? 'must be a scenario file path or a shipped scenario name' : undefined));
    return file === undefined ? undefined : Object.freeze({ file, from: o.text('scenario').from });
  },
  https: (o) => o.tls().https,
  webhookCa: (o) => o.tls().webhookCa,
  fixturesPath: (o) => o.text('fixtures').value ?? DEFAULT_FIXTURES,
  challengeLifetimeMs: (o) => o.duration('challengeLifetime'),
  upiCollectWindowMs: (o) => o.duration('upiWindow'),
  webhookTimeoutMs: (o) => {
    const ms = o.duration('webhookTimeout');
    const { value, from } = o.text('webhookTimeout');
    if (ms > MAX_WEBHOOK_TIMEOUT_MS)
      bad(
        'webhookTimeout',
        from,
        `must be at most 60s (the gateway allows 5s; a stop waits for webhook attempts in flight this long), got "${value}"`,
      );
    return ms;
  },
  bodyLimitBytes: () => 1024 * 1024,
  headersTimeoutMs: () => 10_000,
  requestTimeoutMs: () => 30_000,
  chargebackDelayMs: (o) => o.duration('chargebackDelay'),
  sepaDelayMs: (o) => o.duration('sepaDelay'),
  journalSize: (o) =>
    Number(
      o.checked('journalSize', (v) =>
        /^\d{1,7}$/.test(String(v)) && Number(v) <= MAX_JOURNAL_SIZE
          ? undefined
          : `must be a whole number from 0 to ${MAX_JOURNAL_SIZE} (requests the journal keeps; 0 turns it off), got "${v}"`,
      ),
    ),
  journalAgeMs: (o) => o.duration('journalAge'),
  frontThread: (o) => o.oneOf('frontThread', ['auto', 'on', 'off'] as const),
  authorizationLifetimeMs: (o) => o.duration('authorizationLifetime'),
  otlp: (o) => {
    const { value, from } = o.text('otlp');
    return value === undefined ? undefined : (otlpTracesUrl(value) ?? bad('otlp', from, MUST_BE_OTLP(value)));
  },
};

const MUST_BE_OTLP = (value: string) =>
  `must be the http(s) URL of an OTLP/HTTP collector, like http://127.0.0.1:4318 (spans go to its /v1/traces) or a full traces URL such as http://127.0.0.1:4318/v1/traces, got "${value}"`;

/**
 * The traces endpoint of --otlp: a collector's base URL (no path) gets the OTLP/HTTP traces path
 * /v1/traces, as OTEL_EXPORTER_OTLP_ENDPOINT does; a URL with a path is used as it is. Undefined
 * when it is no http(s) URL.
 */
function otlpTracesUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.hash) return undefined;
  if (url.pathname === '/' && !url.search) url.pathname = '/v1/traces';
  return url.toString();
}

/** True for an address only this machine reaches: 127.0.0.0/8, ::1 and localhost. */
function isLoopbackHost(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  return name === 'localhost' || name === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/**
 * Listening beyond loopback (--host 0.0.0.0, in a container or on a network) needs a decision about
 * the control API (reset, replay, key export): a token every caller sends, or --control-open for a
 * private network. Without either, the sandbox would start with a dashboard nobody but the machine
 * itself (inside a container: nobody) can open, and a CLI that gets 401 from everywhere else.
 */
function checkControlExposure(config: Config, o: Options): void {
  const open = o.setting('controlOpen').from;
  if (config.controlOpen && config.controlToken !== undefined)
    bad(
      'controlOpen',
      open,
      `and ${o.text('controlToken').from} exclude each other: with a token, callers from any address that send it are let in; drop one`,
    );
  if (isLoopbackHost(config.host) || config.controlToken !== undefined || config.controlOpen) return;
  bad(
    'host',
    o.text('host').from,
    `${config.host} listens beyond this machine, so say who may use the control API (/_sandbox: the CLI and the dashboard) from other addresses: --control-token <token> (SANDBOX_CONTROL_TOKEN) makes every caller send it, or --control-open (SANDBOX_CONTROL_OPEN=1) lets them in without one, for a private network such as a compose project or a CI job`,
  );
}

/** Builds the frozen Config from CLI flags and the environment (SANDBOX_* variables): flag > environment > default. */
export function loadConfig(flags: ConfigFlags = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const read = options(flags, env);
  const config: Partial<Record<keyof Config, unknown>> = {};
  for (const [field, parse] of Object.entries(OPTIONS)) config[field as keyof Config] = parse(read);
  checkControlExposure(config as Config, read);
  return Object.freeze(config as Config);
}
