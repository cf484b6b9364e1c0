// loadConfig is the only reader of process.env: every other module receives a frozen Config.
// Each DECISIONS.md choice that a merchant might want to change is a field here with a flag.
import { fileURLToPath } from 'node:url';
import { SandboxError } from './errors.js';
import { parseRetryProfile, type RetryProfile } from './webhooks/retry-schedule.js';
import { parseDuration } from './domain/duration.js';
import { parseFaultSpec } from './webhooks/fault-rules.js';
import { CODE_DIR } from './code-dir.js';

export type LogFormat = 'pretty' | 'json';
export type SignatureMode = 'plain' | 'timestamped';

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
  /** Host names (optionally :port) /_sandbox answers to besides loopback and --public-url's host. */
  readonly allowedHosts: readonly string[];
  /** How long a 3-D Secure challenge waits before the transaction is Expired (22). */
  readonly challengeLifetimeMs: number;
  /** How long a UPI collect request waits for the customer. */
  readonly upiCollectWindowMs: number;
  /** Per-attempt timeout of a webhook POST (SPEC 8: 2xx within 5 seconds). */
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
  readonly scenarioPath: string | undefined;
  readonly autoAuthenticate: string | undefined;
}

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
  /** --allowed-host, repeatable. */
  allowedHost?: string | string[];
  challengeLifetime?: string;
  upiWindow?: string;
  webhookTimeout?: string;
  faults?: string;
  faultSeed?: string | number;
  scenario?: string;
  autoAuthenticate?: string;
}

/** The fixtures file the sandbox seeds from when --fixtures is not given. */
export const DEFAULT_FIXTURES = fileURLToPath(new URL('../fixtures/default.json', CODE_DIR));

function bad(flag: string, message: string): never {
  throw new SandboxError('parameter_invalid', `--${flag} ${message}`, flag);
}

function parsePort(value: string | number | undefined): number {
  if (value === undefined) return 4010;
  const port = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) bad('port', `must be a whole number from 0 to 65535 (0 picks a free port), got "${value}"`);
  return port;
}

function durationFlag(flag: string, value: string | undefined, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0) bad(flag, `must be a duration like 30s, 15m or 2h, got "${value}"`);
  return ms;
}

/** Builds the frozen Config from CLI flags and the environment (SANDBOX_* variables). */
export function loadConfig(flags: ConfigFlags = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const logFormat = flags.logFormat ?? env.SANDBOX_LOG_FORMAT ?? 'pretty';
  if (logFormat !== 'pretty' && logFormat !== 'json') bad('log-format', `must be pretty or json, got "${logFormat}"`);
  const signature = flags.signature ?? 'plain';
  if (signature !== 'plain' && signature !== 'timestamped') bad('signature', `must be plain or timestamped, got "${signature}"`);
  const headerPrefix = flags.headerPrefix ?? 'Sandbox';
  if (!/^[A-Za-z][A-Za-z0-9]{0,31}$/.test(headerPrefix)) bad('header-prefix', 'must be letters and digits, starting with a letter, like Sandbox');
  const publicUrl = flags.publicUrl ?? env.SANDBOX_PUBLIC_URL;
  if (publicUrl !== undefined && !/^https?:\/\/[^\s/]+/.test(publicUrl)) bad('public-url', `must be an http(s) URL like http://localhost:4010, got "${publicUrl}"`);
  const retryText = flags.retry ?? env.SANDBOX_RETRY ?? 'dev';
  const retry = parseRetryProfile(retryText);
  if (!retry) bad('retry', `must be dev, realistic, none or a list like 1s,5s,1m, got "${retryText}"`);
  const controlToken = flags.controlToken ?? env.SANDBOX_CONTROL_TOKEN;
  const allowedHosts = [flags.allowedHost ?? env.SANDBOX_ALLOWED_HOSTS?.split(',') ?? []].flat().map((host) => host.trim()).filter((host) => host !== '');
  for (const host of allowedHosts) {
    if (!/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(host)) bad('allowed-host', `must be a host name or address, optionally with a port, such as sandbox.internal or 192.168.1.5:4010 (no scheme or path), got "${host}"`);
  }
  const faults = (flags.faults ?? env.SANDBOX_FAULTS) || undefined;
  const faultProblem = faults === undefined ? undefined : (parseFaultSpec(faults) as { problem?: string }).problem;
  if (faultProblem) bad('faults', faultProblem);
  const faultSeedText = flags.faultSeed ?? env.SANDBOX_FAULT_SEED;
  const faultSeed = faultSeedText === undefined ? undefined : Number(faultSeedText);
  if (faultSeed !== undefined && !(Number.isInteger(faultSeed) && faultSeed >= 0 && faultSeed <= 0xffffffff)) bad('fault-seed', `must be a whole number from 0 to 4294967295, got "${faultSeedText}"`);

  return Object.freeze({
    port: parsePort(flags.port ?? env.SANDBOX_PORT),
    host: flags.host ?? env.SANDBOX_HOST ?? '127.0.0.1',
    dbPath: flags.db ?? env.SANDBOX_DB ?? '.sandbox/sandbox.db',
    publicUrl: publicUrl?.replace(/\/+$/, ''),
    fixturesPath: flags.fixtures ?? env.SANDBOX_FIXTURES ?? DEFAULT_FIXTURES,
    retry,
    quiet: flags.quiet ?? false,
    logFormat,
    headerPrefix,
    signatureMode: signature,
    controlToken: controlToken === '' ? undefined : controlToken,
    allowedHosts: Object.freeze(allowedHosts),
    challengeLifetimeMs: durationFlag('challenge-lifetime', flags.challengeLifetime, 15 * 60_000),
    upiCollectWindowMs: durationFlag('upi-window', flags.upiWindow, 5 * 60_000),
    webhookTimeoutMs: durationFlag('webhook-timeout', flags.webhookTimeout, 5_000),
    bodyLimitBytes: 1024 * 1024,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    faults,
    faultSeed,
    scenarioPath: flags.scenario,
    autoAuthenticate: flags.autoAuthenticate,
  });
}
