// `sandbox start`: runs the sandbox in the foreground with a banner of its URL and credentials,
// and shuts down cleanly on SIGINT/SIGTERM.
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import kleur from 'kleur';
import { loadConfig, type ConfigFlags } from '../config.js';
import { formatDuration } from '../domain/duration.js';
import { startServer, type RunningServer } from '../server/start-server.js';
import { VERSION } from '../version.js';
import type { CliIo } from './program.js';

/** The start banner: where the sandbox is and the credentials to use. */
export function banner(running: RunningServer): string {
  const { store, config } = running;
  const lines = [
    `${kleur.bold().cyan('paysandbox')} ${VERSION} ${kleur.yellow('test mode')}`,
    `  ${kleur.dim('API       ')} ${running.url}`,
    `  ${kleur.dim('Dashboard ')} ${running.url}/_sandbox/`,
    `  ${kleur.dim('Database  ')} ${config.dbPath}`,
    `  ${kleur.dim('Webhooks  ')} retry ${config.retry.length ? config.retry.map(formatDuration).join(', ') : 'none'}; signed X-${config.headerPrefix}-Signature (${config.signatureMode})`,
    '',
  ];
  const keys = store.credentials.apiKeys();
  for (const merchant of store.credentials.merchants()) {
    lines.push(`  ${kleur.bold(merchant.name)} ${kleur.dim(`(${merchant.id})`)}`);
    for (const t of store.credentials.terminals().filter((x) => x.merchantId === merchant.id)) {
      lines.push(`    terNO ${kleur.green(String(t.terNo))}  public_key ${kleur.green(t.publicKey)}  private_key ${kleur.green(t.privateKey)}`);
    }
    const merchantKeys = keys.filter((k) => k.merchantId === merchant.id).map((k) => kleur.green(k.key));
    lines.push(`    API key ${merchantKeys.join(', ') || kleur.dim('none')}  webhook secret ${kleur.green(merchant.webhookSecret)}`);
  }
  lines.push('', `  Test cards: 4242424242424242 approves at once, 4000000000003220 asks for OTP ${kleur.bold('123456')}; see README.`, '');
  return lines.join('\n');
}

/** Adds `sandbox start`. */
export function addStartCommand(program: Command, io: CliIo): void {
  program
    .command('start')
    .description('run the sandbox (HTTP API, pages, webhook delivery) in the foreground')
    .option('-p, --port <port>', 'port to listen on; 0 picks a free port', '4010')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--db <path>', 'SQLite database file, or :memory:', '.sandbox/sandbox.db')
    .option('--public-url <url>', 'base URL for authurl, authstatus and hosted pages (default: from host and port)')
    .option('--fixtures <file>', 'merchants, terminals and keys to seed (default: fixtures/default.json)')
    .option('--retry <profile>', 'webhook retries: dev, realistic, none, or a list like 1s,5s,1m', 'dev')
    .option('--header-prefix <name>', 'the word in X-<name>-Signature and the other webhook headers', 'Sandbox')
    .option('--signature <mode>', 'plain (HMAC of the body) or timestamped (HMAC of "<timestamp>.<body>")', 'plain')
    .option('--control-token <token>', 'require this bearer token on /_sandbox/ (and allow non-loopback callers)')
    .option('--allowed-host <host>', 'another Host name (optionally :port) /_sandbox/ answers to besides loopback and --public-url\'s; repeatable (or SANDBOX_ALLOWED_HOSTS, comma-separated)', (host: string, hosts: string[] = []) => [...hosts, host])
    .option('--challenge-lifetime <duration>', 'how long a 3-D Secure page waits before Expired', '15m')
    .option('--upi-window <duration>', 'how long a UPI collect request waits', '5m')
    .option('--webhook-timeout <duration>', 'how long a webhook POST may take to answer', '5s')
    .option('--faults <spec>', 'inject webhook faults, e.g. "duplicate=2,delay=2s" or "url=http://127.0.0.1:3000/hook:fail-first=2" (docs/webhooks.md)')
    .option('--fault-seed <n>', 'seed of random faults (fail=P) so a run repeats exactly')
    .option('--scenario <file>', 'scripted outcomes for CI, e.g. fixtures/scenarios/3ds-fails-then-approves.json (docs/ci.md)')
    .option('--auto-authenticate <verdict>', 'complete every 3-D Secure/bank challenge by itself: approve or decline, optionally after sandbox time, e.g. approve:5s')
    .option('--ready-file <file>', 'write the base URL to this file once the sandbox answers')
    .option('-q, --quiet', 'no banner, request or webhook log lines (the Listening on line stays)')
    .option('--log-format <format>', 'pretty or json', 'pretty')
    .action(async (flags: ConfigFlags & { readyFile?: string }) => {
      const config = loadConfig(flags);
      const running = await startServer(config);
      if (!config.quiet) io.out(banner(running));
      io.out(`Listening on ${running.url}`);
      if (flags.readyFile) writeFileSync(flags.readyFile, running.url + '\n');
      await new Promise<void>((resolve) => {
        let stopping = false;
        const stop = (signal: string) => {
          if (stopping) {
            // A second signal means "now": every acknowledged payment and queued webhook is already committed.
            io.err(`${signal} again: exiting without waiting`);
            process.exit(130);
          }
          stopping = true;
          io.out(kleur.dim(`${signal}: finishing in-flight webhooks and closing the database...`));
          const exit = () => {
            resolve();
            // Lookups of unreachable webhook hosts can keep the event loop alive for minutes after
            // the sandbox itself is closed; nothing of ours is left, so leave now.
            setTimeout(() => process.exit(process.exitCode ?? 0), 100).unref();
          };
          running.close().then(exit, exit);
        };
        process.on('SIGINT', () => stop('SIGINT'));
        process.on('SIGTERM', () => stop('SIGTERM'));
      });
    });
}
