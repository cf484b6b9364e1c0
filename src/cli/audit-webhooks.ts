// `sandbox audit-webhooks --to URL`: grades a merchant's webhook handler (src/webhooks/audit/cases.ts) and
// exits 1 when a must-pass case fails, so a CI job can gate on it. The events and the secret come
// from a private in-memory sandbox seeded with the default fixtures, or, with --url, from a running
// sandbox's control API: its merchant's secret and terminal keys (GET /_sandbox/export) and its
// real events (a payment.authorized/payment.captured pair of one payment, an S2S event).
import { writeFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { parseDuration } from '../domain/duration.js';
import type { AuditSettings } from '../webhooks/audit/audit.js';
import { SIGNATURE_MODES, type SignatureMode } from '../domain/vocabularies.js';
import { auditJunit, formatAuditReport } from './audit-report.js';
import { CliError } from './cli-error.js';
import { ControlClient } from './control-client.js';
import type { CliIo } from './io.js';
import { sandboxAuditMaterial } from '../client/audit-material.js';
import { errorMessage } from '../errors.js';

interface AuditFlags {
  to: string;
  secret?: string;
  signature: string;
  headerPrefix: string;
  url?: string;
  controlToken?: string;
  merchant?: string;
  timeout: string;
  json?: boolean;
  junit?: string;
}

/** The flag each setting of auditInputProblem comes from. */
const FLAG = { url: '--to', signature: '--signature', headerPrefix: '--header-prefix', timeout: '--timeout' } as const;

/** Adds `sandbox audit-webhooks`. */
export function addAuditWebhooksCommand(program: Command, io: CliIo): void {
  program
    .command('audit-webhooks')
    .description(
      'grade your webhook handler: send it signed, forged, stale, tampered, duplicate, unknown, out-of-order, encrypted and large deliveries and check its answers',
    )
    .requiredOption('--to <url>', "your webhook handler's URL, e.g. http://127.0.0.1:3000/webhooks")
    .option('--secret <secret>', "the secret your handler verifies with (default: the merchant's webhook secret)")
    .option('--signature <mode>', `the signature mode your handler verifies: ${SIGNATURE_MODES.join(' or ')}`, 'plain')
    .option('--header-prefix <name>', 'the word in X-<name>-Signature', 'Sandbox')
    .option(
      '--url <url>',
      "a running sandbox to take the merchant's secret, keys and real events from (default: events made for the audit)",
    )
    .addOption(
      new Option('--control-token <token>', 'bearer token, when the sandbox at --url was started with --control-token').env(
        'SANDBOX_CONTROL_TOKEN',
      ),
    )
    .option('--merchant <id>', 'whose secret and events (default: the first merchant, mer_sandbox)')
    .option('--timeout <duration>', 'each answer must come within this time (the gateway allows 5s)', '5s')
    .option('--json', 'print the result as JSON')
    .option('--junit <file>', 'also write the result as JUnit XML to this file, for CI')
    .action(async (flags: AuditFlags) => {
      const timeoutMs = parseDuration(flags.timeout);
      if (timeoutMs === undefined) throw new CliError(`--timeout must be a duration like 5s or 500ms, got "${flags.timeout}"`);
      const settings: AuditSettings = { signatureMode: flags.signature as SignatureMode, headerPrefix: flags.headerPrefix, timeoutMs };
      // Loaded here: the audit's cases and its in-memory sandbox are the server's modules, which no other command needs.
      const [{ auditInputProblem }, { runWebhookAudit }, { syntheticAuditMaterial }] = await Promise.all([
        import('../webhooks/audit/audit.js'),
        import('../webhooks/audit/cases.js'),
        import('../server/audit-material.js'),
      ]);
      const wrong = auditInputProblem(flags.to, settings);
      if (wrong)
        throw new CliError(
          `${FLAG[wrong.key]} ${wrong.key === 'timeout' ? `must be a duration greater than 0 and at most 60s, got "${flags.timeout}"` : wrong.problem}`,
        );
      const material = flags.url
        ? await sandboxAuditMaterial(
            new ControlClient({ url: flags.url, controlToken: flags.controlToken }),
            flags.merchant,
            // An S2S event carries the spec §6.1 fields; a sandbox without one lends the audit a made-up one.
            () => syntheticAuditMaterial(undefined).s2s,
            '--merchant',
          )
        : syntheticAuditMaterial(undefined, flags.merchant);
      const result = await runWebhookAudit(flags.to, { ...material, secret: flags.secret ?? material.secret }, settings);
      if (flags.junit) {
        try {
          writeFileSync(flags.junit, auditJunit(result));
        } catch (err) {
          throw new CliError(`--junit ${flags.junit}: cannot write the file: ${errorMessage(err)}`);
        }
      }
      io.out(flags.json ? JSON.stringify(result, null, 2) : formatAuditReport(result));
      if (!result.passed) io.exitCode = 1;
    });
}
