import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FIXTURES, loadConfig, type ConfigFlags } from '../../src/config.js';
import { unknownVariableWarnings } from '../../src/cli/env-warnings.js';
import { SandboxError } from '../../src/errors.js';
import { RETRY_PROFILES } from '../../src/domain/retry-profile.js';

function failure(flags: ConfigFlags, env: NodeJS.ProcessEnv = {}): SandboxError {
  try {
    loadConfig(flags, env);
  } catch (err) {
    if (err instanceof SandboxError) return err;
    throw err;
  }
  throw new Error('loadConfig accepted the flags');
}

describe('loadConfig defaults', () => {
  const config = loadConfig({}, {});

  it.each([
    ['port', 4010],
    ['host', '127.0.0.1'],
    ['dbPath', '.sandbox/sandbox.db'],
    ['publicUrl', undefined],
    ['fixturesPath', DEFAULT_FIXTURES],
    ['quiet', false],
    ['logFormat', 'pretty'],
    ['headerPrefix', 'Sandbox'],
    ['signatureMode', 'plain'],
    ['controlToken', undefined],
    ['challengeLifetimeMs', 15 * 60_000],
    ['upiCollectWindowMs', 5 * 60_000],
    ['webhookTimeoutMs', 5000],
    ['bodyLimitBytes', 1024 * 1024],
    ['chargebackDelayMs', 30_000],
    ['sepaDelayMs', 3 * 60_000],
    ['authorizationLifetimeMs', 7 * 86_400_000],
    ['frontThread', 'auto'],
  ] as Array<[keyof typeof config, unknown]>)('%s is %j', (key, value) => {
    expect(config[key]).toEqual(value);
  });

  it('retries with the dev profile', () => {
    expect(config.retry).toEqual(RETRY_PROFILES.dev);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(config)).toBe(true);
  });
});

describe('loadConfig flags and environment', () => {
  it('reads every flag', () => {
    const config = loadConfig(
      {
        port: '0',
        host: '0.0.0.0',
        db: ':memory:',
        publicUrl: 'https://sandbox.example/',
        retry: '50ms,50ms',
        quiet: true,
        logFormat: 'json',
        headerPrefix: 'Acme',
        signature: 'timestamped',
        controlToken: 'tok',
        challengeLifetime: '2m',
        upiWindow: '30s',
        webhookTimeout: '500ms',
      },
      {},
    );
    expect(config).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      dbPath: ':memory:',
      publicUrl: 'https://sandbox.example',
      retry: [50, 50],
      quiet: true,
      logFormat: 'json',
      headerPrefix: 'Acme',
      signatureMode: 'timestamped',
      controlToken: 'tok',
      challengeLifetimeMs: 120_000,
      upiCollectWindowMs: 30_000,
      webhookTimeoutMs: 500,
    });
  });

  it('takes SANDBOX_* variables when no flag is given', () => {
    const config = loadConfig(
      {},
      {
        SANDBOX_PORT: '5000',
        SANDBOX_HOST: '::1',
        SANDBOX_DB: '/tmp/x.db',
        SANDBOX_RETRY: 'none',
        SANDBOX_LOG_FORMAT: 'json',
        SANDBOX_PUBLIC_URL: 'http://h:1',
      },
    );
    expect(config).toMatchObject({ port: 5000, host: '::1', dbPath: '/tmp/x.db', retry: [], logFormat: 'json', publicUrl: 'http://h:1' });
  });

  it('prefers a flag over the environment', () => {
    expect(loadConfig({ port: '6000' }, { SANDBOX_PORT: '5000' }).port).toBe(6000);
  });

  it('takes the variables of the other options too', () => {
    const config = loadConfig(
      {},
      {
        SANDBOX_SIGNATURE: 'timestamped',
        SANDBOX_HEADER_PREFIX: 'Acme',
        SANDBOX_WEBHOOK_TIMEOUT: '2s',
        SANDBOX_AUTO_AUTHENTICATE: 'decline:5s',
        SANDBOX_QUIET: 'true',
        SANDBOX_SCENARIO: 'outcomes-by-amount',
      },
    );
    expect(config).toMatchObject({
      signatureMode: 'timestamped',
      headerPrefix: 'Acme',
      webhookTimeoutMs: 2000,
      autoAuthenticate: { outcome: 'decline', delayMs: 5000 },
      quiet: true,
    });
    expect(config.scenario).toEqual({ file: 'outcomes-by-amount', from: 'SANDBOX_SCENARIO' });
  });

  it('takes the standard signature mode (Standard Webhooks) from --signature or SANDBOX_SIGNATURE', () => {
    expect(loadConfig({ signature: 'standard' }, {}).signatureMode).toBe('standard');
    expect(loadConfig({}, { SANDBOX_SIGNATURE: 'standard' }).signatureMode).toBe('standard');
    expect(() => loadConfig({}, { SANDBOX_SIGNATURE: 'svix' })).toThrow(
      'SANDBOX_SIGNATURE must be plain or timestamped or standard, got "svix"',
    );
  });

  it('takes the delays of the chargeback card and the slow SEPA IBAN from flags or variables', () => {
    expect(loadConfig({ chargebackDelay: '2s' }, { SANDBOX_SEPA_DELAY: '500ms' })).toMatchObject({
      chargebackDelayMs: 2000,
      sepaDelayMs: 500,
    });
  });

  it('takes how long an uncaptured authorization lasts from --authorization-lifetime or SANDBOX_AUTHORIZATION_LIFETIME', () => {
    expect(loadConfig({ authorizationLifetime: '1d' }, {}).authorizationLifetimeMs).toBe(86_400_000);
    expect(loadConfig({}, { SANDBOX_AUTHORIZATION_LIFETIME: '36h' }).authorizationLifetimeMs).toBe(36 * 3_600_000);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({}, { SANDBOX_PORT: '', SANDBOX_RETRY: '' })).toMatchObject({ port: 4010, retry: RETRY_PROFILES.dev });
  });

  it('treats an empty SANDBOX_CONTROL_TOKEN as none', () => {
    expect(loadConfig({}, { SANDBOX_CONTROL_TOKEN: '' }).controlToken).toBeUndefined();
  });
});

describe('loadConfig refuses bad flags with an error naming the flag', () => {
  it.each([
    ['port', { port: 'abc' }],
    ['port', { port: '70000' }],
    ['port', { port: '-1' }],
    ['port', { port: '80.5' }],
    ['log-format', { logFormat: 'xml' }],
    ['front-thread', { frontThread: 'yes' }],
    ['signature', { signature: 'rsa' }],
    ['header-prefix', { headerPrefix: 'X-Acme' }],
    ['header-prefix', { headerPrefix: '9lives' }],
    ['public-url', { publicUrl: 'ftp://sandbox.example' }],
    ['public-url', { publicUrl: 'sandbox.example' }],
    ['retry', { retry: 'bogus' }],
    ['retry', { retry: '1s,,2s' }],
    ['challenge-lifetime', { challengeLifetime: 'soon' }],
    ['challenge-lifetime', { challengeLifetime: '0s' }],
    ['upi-window', { upiWindow: '-5m' }],
    ['webhook-timeout', { webhookTimeout: 'fast' }],
    ['chargeback-delay', { chargebackDelay: '0s' }],
    ['sepa-delay', { sepaDelay: 'later' }],
    ['authorization-lifetime', { authorizationLifetime: 'a week' }],
    ['authorization-lifetime', { authorizationLifetime: '0s' }],
  ] as Array<[string, ConfigFlags]>)('--%s %j', (flag, flags) => {
    const err = failure(flags);
    expect(err.code).toBe('parameter_invalid');
    expect(err.param).toBe(flag);
    expect(err.message.startsWith(`--${flag} `)).toBe(true);
  });

  it('--webhook-timeout takes at most 60s (a stop waits this long for attempts in flight), from the flag or the variable', () => {
    expect(loadConfig({ webhookTimeout: '60s' }, {}).webhookTimeoutMs).toBe(60_000);
    const flag = failure({ webhookTimeout: '1h' });
    expect(flag).toMatchObject({ code: 'parameter_invalid', param: 'webhook-timeout' });
    expect(flag.message).toBe(
      '--webhook-timeout must be at most 60s (the gateway allows 5s; a stop waits for webhook attempts in flight this long), got "1h"',
    );
    expect(failure({}, { SANDBOX_WEBHOOK_TIMEOUT: '61s' }).message).toMatch(/^SANDBOX_WEBHOOK_TIMEOUT must be at most 60s/);
  });

  it.each([
    ['port', { SANDBOX_PORT: 'x' }],
    ['retry', { SANDBOX_RETRY: 'often' }],
    ['log-format', { SANDBOX_LOG_FORMAT: 'yaml' }],
  ])('a bad environment value is named by its flag (--%s)', (flag, env) => {
    expect(failure({}, env).param).toBe(flag);
  });

  it('a bad environment value is quoted under the variable the user set', () => {
    expect(failure({}, { SANDBOX_RETRY: 'often' }).message).toBe(
      'SANDBOX_RETRY must be dev, realistic, none or a list like 1s,5s,1m, got "often"',
    );
  });

  it('quotes the bad value so the user sees what was read', () => {
    expect(failure({ retry: 'bogus' }).message).toContain('"bogus"');
  });
});

describe('a mistyped SANDBOX_* variable', () => {
  it('is named with the variable it is closest to', () => {
    expect(
      unknownVariableWarnings({
        SANDBOX_PROT: '5000',
        SANDBOX_ULR: 'http://127.0.0.1:4011',
        SANDBOX_CONTROL_TOKN: 't',
        SANDBOX_PORT: '1',
        PATH: '/bin',
      }),
    ).toEqual([
      'SANDBOX_CONTROL_TOKN is set, but no sandbox option reads it; did you mean SANDBOX_CONTROL_TOKEN?',
      'SANDBOX_PROT is set, but no sandbox option reads it; did you mean SANDBOX_PORT?',
      'SANDBOX_ULR is set, but no sandbox option reads it; did you mean SANDBOX_URL?',
    ]);
  });

  it('leaves alone the variables the sandbox reads and other SANDBOX_* names that are no near miss', () => {
    expect(
      unknownVariableWarnings({ SANDBOX_URL: '', SANDBOX_DB: 'x.db', SANDBOX_CLI: 'npx sandbox', SANDBOX_PID: '12', SANDBOX_HEX: 'ff' }),
    ).toEqual([]);
  });
});

describe('--db in a folder that does not exist', () => {
  it('is refused outside the working directory, naming the folder to create', () => {
    const root = mkdtempSync(join(tmpdir(), 'paysandbox-db-'));
    try {
      const db = join(root, 'typo', 'x.db');
      const err = failure({ db });
      expect(err.param).toBe('db');
      expect(err.message).toBe(
        `--db is "${db}", in a folder that does not exist (${join(root, 'typo')}); create that folder first, or give a path under the working directory (${process.cwd()}), where missing folders are created`,
      );
      expect(failure({}, { SANDBOX_DB: join(root, 'typo', 'x.db') }).message).toMatch(/^SANDBOX_DB is "/);
      // An existing folder anywhere is fine.
      expect(loadConfig({ db: join(root, 'x.db') }, {}).dbPath).toBe(join(root, 'x.db'));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('is accepted under the working directory (the default .sandbox/), where the sandbox creates it', () => {
    expect(loadConfig({ db: join('.sandbox', 'not-made-yet', 'x.db') }, {}).dbPath).toBe(join('.sandbox', 'not-made-yet', 'x.db'));
    expect(loadConfig({ db: join(process.cwd(), 'not-made-yet', 'x.db') }, {}).dbPath).toBe(join(process.cwd(), 'not-made-yet', 'x.db'));
  });
});
describe('--otlp', () => {
  it('is off unless given: no traces endpoint, so the SDK is never loaded', () => {
    expect(loadConfig({}, {}).otlp).toBeUndefined();
  });

  it("takes a collector's base URL (spans go to its /v1/traces) or a full traces URL as it is", () => {
    expect(loadConfig({ otlp: 'http://127.0.0.1:4318' }, {}).otlp).toBe('http://127.0.0.1:4318/v1/traces');
    expect(loadConfig({ otlp: 'https://collector.internal/' }, {}).otlp).toBe('https://collector.internal/v1/traces');
    expect(loadConfig({ otlp: 'http://127.0.0.1:4318/otlp/v1/traces' }, {}).otlp).toBe('http://127.0.0.1:4318/otlp/v1/traces');
    expect(loadConfig({}, { SANDBOX_OTLP: 'http://127.0.0.1:4318' }).otlp).toBe('http://127.0.0.1:4318/v1/traces');
  });

  it.each(['127.0.0.1:4318', 'grpc://127.0.0.1:4317', 'http://user:pw@127.0.0.1:4318', ''])(
    'refuses %j naming --otlp and what to give',
    (value) => {
      const err = failure({ otlp: value });
      expect(err.param).toBe('otlp');
      expect(err.message).toMatch(/^--otlp must be the http\(s\) URL of an OTLP\/HTTP collector, like http:\/\/127\.0\.0\.1:4318 /);
    },
  );
});
