// `sandbox audit-webhooks --to URL`: grades a merchant's webhook handler (src/webhooks/audit/cases.ts) and
// exits 1 when a must-pass case fails, so a CI job can gate on it. The events and the secret come
// from a private in-memory sandbox seeded with the default fixtures, or, with --url, from a running
// sandbox's control API: its merchant's secret and terminal keys (GET /_sandbox/export) and its
// real events (a payment.authorized/payment.captured pair of one payment, an S2S event).
import { writeFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { parseDuration } from '../domain/duration.js';
import { syntheticAuditMaterial } from '../server/audit-material.js';
import { auditInputProblem, type AuditMaterial, type AuditSettings } from '../webhooks/audit/audit.js';
import { runWebhookAudit } from '../webhooks/audit/cases.js';
import { SIGNATURE_MODES, type SignatureMode } from '../domain/vocabularies.js';
import { auditJunit, formatAuditReport } from './audit-report.js';
import { CliError } from './cli-error.js';
import { ControlClient } from './control-client.js';
import type { CliIo } from './io.js';
import type { MerchantView } from '../views/merchant.js';
import type { ControlEventView as EventView, TriggerResultView } from '../views/event.js';
import { present, errorMessage } from '../errors.js';

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

/** An event as the payload builders take it. */
type EventRecord = AuditMaterial['authorized'];

/** A control event back in the form the payload builders take. */
const toRecord = (e: EventView): EventRecord => ({
  id: e.id,
  type: e.event,
  resourceId: e.resource_id,
  merchantId: e.merchant_id,
  createdAt: Date.parse(e.created_at),
  data: e.data,
});

/** The audit's material from the running sandbox at flags.url. */
async function remoteMaterial(client: ControlClient, merchantId: string | undefined): Promise<AuditMaterial> {
  const merchants = await client.listAll<MerchantView>('/merchants');
  const merchant = merchantId === undefined ? merchants[0] : merchants.find((m) => m.id === merchantId);
  if (!merchant)
    throw new CliError(
      `--merchant ${merchantId ?? ''} is not a merchant of the sandbox at ${client.base}; use one of ${merchants.map((m) => m.id).join(', ')}`,
    );
  const id = merchant.id;

  // The newest payment.captured whose payment.authorized is there too; a trigger makes the pair when there is none.
  let pair: { authorized: EventRecord; captured: EventRecord } | undefined;
  const captures = (await client.get<{ data: EventView[] }>('/events', { merchant: id, type: 'payment.captured', limit: 5 })).data;
  for (const captured of captures) {
    const [authorized] = (
      await client.get<{ data: EventView[] }>('/events', { resource: captured.resource_id, type: 'payment.authorized', limit: 1 })
    ).data;
    if (authorized) {
      pair = { authorized: toRecord(authorized), captured: toRecord(captured) };
      break;
    }
  }
  if (!pair) {
    const made = await client.post<TriggerResultView>('/events/trigger', { type: 'payment.captured', merchant: id });
    const authorizedId = present(
      made.events.find((e) => e.type === 'payment.authorized'),
      'the payment.authorized event of the trigger',
    ).id;
    pair = { authorized: toRecord(await client.get<EventView>(`/events/${authorizedId}`)), captured: toRecord(made.event) };
  }
  // An S2S event carries the spec §6.1 fields (transID, order_status); without one, the audit makes one.
  const recent = (await client.get<{ data: EventView[] }>('/events', { merchant: id, limit: 100 })).data;
  const s2sView = recent.find((e) => typeof e.data.transID === 'string' && typeof e.data.order_status === 'string');
  const s2s = s2sView ? toRecord(s2sView) : syntheticAuditMaterial(undefined).s2s;
  return {
    source: client.base,
    merchantId: id,
    secret: merchant.webhook_secret,
    keys:
      merchant.public_key !== null && merchant.private_key !== null
        ? { publicKey: merchant.public_key, privateKey: merchant.private_key }
        : null,
    ...pair,
    s2s,
  };
}

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
      const wrong = auditInputProblem(flags.to, settings);
      if (wrong)
        throw new CliError(
          `${FLAG[wrong.key]} ${wrong.key === 'timeout' ? `must be a duration greater than 0 and at most 60s, got "${flags.timeout}"` : wrong.problem}`,
        );
      const material = flags.url
        ? await remoteMaterial(new ControlClient({ url: flags.url, controlToken: flags.controlToken }), flags.merchant)
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
