// The tools of the MCP server: each one runs a step of a payment test through the control API (or
// the payment APIs) with the one control client. A tool that stands for a control route takes that
// route's request schema from src/contracts and answers its view from src/views (`route` names it,
// so a test holds the two together); what it did comes back as structured content and a short line.
import type * as z from 'zod';
import { sandboxAuditMaterial } from '../client/audit-material.js';
import { ClientError } from '../client/client-error.js';
import type { ControlClient } from '../client/control-client.js';
import { deliveryLine, waitForDelivery } from '../client/delivery-wait.js';
import { advanceSchema } from '../contracts/clock.js';
import { deliveryQuery } from '../contracts/deliveries.js';
import { triggerSchema } from '../contracts/events.js';
import { faultRuleSchema } from '../contracts/faults.js';
import { createMerchantSchema } from '../contracts/merchants.js';
import {
  auditWebhooksToolSchema,
  authenticateToolSchema,
  clearFaultsToolSchema,
  createPaymentToolSchema,
  deleteMerchantToolSchema,
  replayDeliveryToolSchema,
  resetToolSchema,
  scriptTokenToolSchema,
  showDeliveryToolSchema,
  waitForDeliveryToolSchema,
} from '../contracts/mcp-tools.js';
import { diagnoseSignatureSchema } from '../contracts/signature-diagnosis-schema.js';
import { parseDuration } from '../domain/duration.js';
import { unknownEventProblem } from '../domain/event-types.js';
import { formatDecimalAmount } from '../domain/money.js';
import { present, SandboxError } from '../errors.js';
import { auditInputProblem } from '../webhooks/audit/audit.js';
import { runWebhookAudit } from '../webhooks/audit/cases.js';
import { authenticateResultView, type AuthenticateResultView } from '../views/authentication.js';
import { type ClockAdvanceView, clockAdvanceView } from '../views/clock.js';
import { deliveryDetailView, type DeliveryDetailView, type DeliveryView, deliveryView } from '../views/delivery.js';
import { type TriggerResultView, triggerResultView } from '../views/event.js';
import { type FaultsDeletedView, faultsDeletedView, type FaultsSetView, faultsSetView } from '../views/fault-rule.js';
import { listOf, type ListView } from '../views/list.js';
import { auditResultView, type CreatedPaymentView, createdPaymentView, waitedDeliveryView } from '../views/mcp-results.js';
import { type TokenOutcomesView, tokenOutcomesView } from '../views/token-outcomes.js';
import { type DeletedMerchantView, deletedMerchantView, type MerchantView, merchantView } from '../views/merchant.js';
import type { PaymentView } from '../views/payment.js';
import type { S2SPaymentView } from '../views/s2s.js';
import { type SignatureDiagnosisView, signatureDiagnosisView } from '../views/signature-diagnosis.js';
import { type MerchantResetView, merchantResetView } from '../views/state.js';
import { deliveryDetailLines, deliveryListLines } from './tool-answers.js';
import type { LazySchema } from '../lazy-schema.js';

/** What a tool hints about itself (MCP tool annotations). */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
}

/** What a tool did: the structured content and its summary. */
export interface ToolAnswer {
  result: Record<string, unknown>;
  summary: string;
}

/** One tool: its arguments' schema (src/contracts), its answer's (src/views), and what it runs. */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  /** Both built on first use (src/lazy-schema.ts): when the tools are listed, or the tool is called. */
  input: LazySchema;
  output: LazySchema;
  annotations: ToolHints;
  /** The control route whose request schema the arguments are (its path parameters added), for the drift check. */
  route?: { method: 'get' | 'post' | 'delete'; path: string; in: 'body' | 'query' };
  run(client: ControlClient, args: never): Promise<ToolAnswer>;
}

/** A tool whose run() is typed by its input schema. */
function tool<S extends z.ZodType>(
  definition: Omit<McpTool, 'run' | 'input'> & { input: LazySchema<S>; run(client: ControlClient, args: z.output<S>): Promise<ToolAnswer> },
): McpTool {
  return definition as unknown as McpTool;
}

const READS: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };
const ADDS: ToolHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: false };
const REMOVES: ToolHints = { readOnlyHint: false, destructiveHint: true, idempotentHint: true };

const answer = (result: object, summary: string): ToolAnswer => ({ result: result as Record<string, unknown>, summary });
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A merchant by id, or the first one (the seeded mer_sandbox). */
async function merchantOf(client: ControlClient, id: string | undefined): Promise<MerchantView> {
  if (id !== undefined) return client.get<MerchantView>(`/merchants/${encodeURIComponent(id)}`);
  const [first] = (await client.get<ListView<MerchantView>>('/merchants', { limit: 1 })).data;
  if (!first) throw new ClientError('the sandbox has no merchant; make one with create_merchant');
  return first;
}

/** Where the customer would return after 3-D Secure when the agent names no page: never fetched. */
const DEFAULT_RETURN_URL = 'https://shop.example/return';

/** Far enough ahead that a card never expires while a test moves the sandbox clock. */
const CARD_EXPIRY = { month: 12, year: 2045 };

/** create_payment: a payment through /v1/payments or /api/s2s, in one shape. */
async function createPayment(client: ControlClient, args: z.output<ReturnType<typeof createPaymentToolSchema>>): Promise<ToolAnswer> {
  const m = await merchantOf(client, args.merchant);
  const headers: Record<string, string> = args.outcome ? { 'x-sandbox-outcome': args.outcome } : {};
  let made: CreatedPaymentView;
  if (args.api === 'v1') {
    if (!m.api_key)
      throw new SandboxError('parameter_invalid', `merchant ${m.id} has no API key; use api "s2s" or another merchant`, 'merchant');
    const body = {
      amount: args.amount,
      currency: args.currency,
      card: { number: args.card, exp_month: CARD_EXPIRY.month, exp_year: CARD_EXPIRY.year, cvc: '123' },
      reference: args.reference,
      capture: args.capture,
      metadata: args.metadata,
      webhook_url: args.webhook_url,
      return_url: args.return_url ?? DEFAULT_RETURN_URL,
    };
    const payment = await client.postApi<PaymentView>('/v1/payments', body, { ...headers, authorization: `Bearer ${m.api_key}` });
    made = {
      api: 'v1',
      merchant: m.id,
      id: payment.id,
      status: payment.status,
      authentication_url: payment.next_action?.url ?? null,
      answer: payment,
    };
  } else {
    if (args.webhook_url === undefined)
      throw new SandboxError(
        'parameter_missing',
        'webhook_url is required when api is "s2s": give your handler\'s URL, e.g. "http://127.0.0.1:3000/webhooks"',
        'webhook_url',
      );
    if (args.metadata !== undefined)
      throw new SandboxError('parameter_unknown', 'metadata is taken with api "v1" only; leave it out for "s2s"', 'metadata');
    if (m.terNO === null || m.public_key === null)
      throw new SandboxError('parameter_invalid', `merchant ${m.id} has no terminal; use api "v1" or another merchant`, 'merchant');
    const body = {
      public_key: m.public_key,
      terNO: m.terNO,
      'integration-type': 's2s',
      bill_amt: formatDecimalAmount(args.amount, args.currency),
      bill_currency: args.currency,
      product_name: 'Agent rehearsal',
      reference: args.reference ?? `mcp_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`,
      webhook_url: args.webhook_url,
      return_url: args.return_url ?? DEFAULT_RETURN_URL,
      mop: 'CC',
      ccno: args.card,
      ccvv: '123',
      month: String(CARD_EXPIRY.month),
      year: String(CARD_EXPIRY.year % 100),
      fullname: 'Jane Doe',
      bill_email: 'jane@example.com',
    };
    const payment = await client.postApi<S2SPaymentView>('/api/s2s', body, headers);
    made = {
      api: 's2s',
      merchant: m.id,
      id: payment.transID,
      status: payment.status,
      authentication_url: payment.authurl || null,
      answer: payment,
    };
  }
  const next = made.authentication_url
    ? `; 3-D Secure waits: finish it with authenticate {"id": "${made.id}", "outcome": "approve" or "decline"}`
    : '';
  return answer(made, `${made.api} payment ${made.id} of ${m.id} is ${made.status}${next}`);
}

/** wait_for_delivery: polls the control API until the delivery is there, or says what arrived instead. */
async function waitForIt(client: ControlClient, args: z.output<ReturnType<typeof waitForDeliveryToolSchema>>): Promise<ToolAnswer> {
  const unknown = args.event === undefined ? undefined : unknownEventProblem('event', args.event);
  if (unknown) throw new SandboxError('parameter_invalid', unknown, 'event');
  const started = Date.now();
  const timeoutMs = present(parseDuration(args.timeout), 'timeout (the tool schema checked it)');
  const outcome = await waitForDelivery(client, args, started + timeoutMs);
  if (outcome.found) {
    const waited = { delivery: outcome.found, waited_ms: Date.now() - started };
    return answer(waited, `found ${deliveryLine(outcome.found)}`);
  }
  const seen = (await client.get<ListView<DeliveryView>>('/deliveries', { merchant: args.merchant, limit: 10 })).data;
  const wanted = [
    args.status === 'any' ? 'delivery' : `${args.status} delivery`,
    args.event && `of ${args.event}`,
    args.payment && `for ${args.payment}`,
    args.url && `to ${args.url}`,
  ]
    .filter(Boolean)
    .join(' ');
  const why = outcome.failedForGood
    ? `no ${wanted} will come: every matching one failed for good (no retries left)`
    : `no ${wanted} within ${args.timeout}`;
  throw new ClientError(
    `${why}; the newest deliveries are:\n${deliveryListLines(seen).join('\n')}\n(list_deliveries and show_delivery say more; a longer timeout waits longer)`,
  );
}

/** audit_webhooks: the audit of `sandbox audit-webhooks --url`, with this sandbox's events and the merchant's secret. */
async function audit(client: ControlClient, args: z.output<ReturnType<typeof auditWebhooksToolSchema>>): Promise<ToolAnswer> {
  const settings = {
    signatureMode: args.signature,
    headerPrefix: args.header_prefix,
    timeoutMs: parseDuration(args.timeout) ?? Number.NaN,
  };
  const wrong = auditInputProblem(args.url, settings);
  if (wrong) {
    const field = { url: 'url', signature: 'signature', headerPrefix: 'header_prefix', timeout: 'timeout' }[wrong.key];
    throw new SandboxError(
      'parameter_invalid',
      `${field} ${wrong.key === 'timeout' ? `must be a duration above 0 and at most 60s such as "5s", got ${JSON.stringify(args.timeout)}` : wrong.problem}`,
      field,
    );
  }
  // Without an S2S event of its own the sandbox has nothing to encrypt: that case is skipped.
  const material = await sandboxAuditMaterial(client, args.merchant, () => null);
  const result = await runWebhookAudit(args.url, { ...material, secret: args.secret ?? material.secret }, settings);
  const failed = result.cases.filter((c) => c.result === 'fail').map((c) => `  ${c.level} ${c.id}: ${c.reason}`);
  const { pass, fail, skip } = result.summary;
  return answer(result, [`${result.passed ? 'passed' : 'FAILED'}: ${pass} passed, ${fail} failed, ${skip} skipped`, ...failed].join('\n'));
}

/** The clock advance's summary: the new time, and what the jump caused when the answer reports it. */
function advanceSummary(view: ClockAdvanceView): string {
  return `sandbox time is now ${view.now} (${view.offset} ahead of the wall clock); ${plural(view.jobs_run, 'timed job')} ran`;
}

/** Every tool the server offers, in the order an agent meets them in a test. */
export const MCP_TOOLS: readonly McpTool[] = [
  tool({
    name: 'create_merchant',
    title: 'Create a merchant',
    description:
      'Make a merchant of your own (terminal, API key, webhook secret), isolated from every other merchant: start each test with one, and reset or delete it at the end.',
    input: createMerchantSchema,
    output: merchantView,
    annotations: ADDS,
    route: { method: 'post', path: '/_sandbox/merchants', in: 'body' },
    async run(client, args) {
      const m = await client.post<MerchantView>('/merchants', args);
      return answer(m, `created merchant ${m.id} (${m.name}): terNO ${m.terNO}, API key ${m.api_key}, webhook secret ${m.webhook_secret}`);
    },
  }),
  tool({
    name: 'create_payment',
    title: 'Create a payment',
    description:
      'Pay as a customer would: through the /v1/ API (api "v1") or the S2S API (api "s2s"), with a test card that scripts the outcome (4000000000003220 asks for 3-D Secure) or a forced outcome. Answers the payment id, its status and the 3-D Secure page that waits, if any (finish it with authenticate).',
    input: createPaymentToolSchema,
    output: createdPaymentView,
    annotations: ADDS,
    run: createPayment,
  }),
  tool({
    name: 'authenticate',
    title: 'Finish 3-D Secure',
    description:
      'Complete the open 3-D Secure or bank challenge of a payment as its customer would, without a browser: approve, decline, cancel or expire. The payment moves on and its webhooks go out.',
    input: authenticateToolSchema,
    output: authenticateResultView,
    annotations: ADDS,
    route: { method: 'post', path: '/_sandbox/transactions/:transID/authenticate', in: 'body' },
    async run(client, { id, ...body }) {
      const r = await client.post<AuthenticateResultView>(`/transactions/${encodeURIComponent(id)}/authenticate`, body);
      const now =
        'object' in r ? `payment ${r.id} is ${r.status}` : `transaction ${r.transID} is ${r.status} (order_status ${r.order_status})`;
      return answer(r, `authentication ${r.authentication}: ${now}`);
    },
  }),
  tool({
    name: 'trigger_event',
    title: 'Trigger an event',
    description:
      'Produce an event of any type by driving the real services (payments, refunds, chargebacks, settlements behind it), optionally on an existing payment, with chosen fields (set) and delivered once to a URL (to).',
    input: triggerSchema,
    output: triggerResultView,
    annotations: ADDS,
    route: { method: 'post', path: '/_sandbox/events/trigger', in: 'body' },
    async run(client, args) {
      const r = await client.post<TriggerResultView>('/events/trigger', args);
      const related = Object.entries(r.related)
        .map(([key, value]) => `${key} ${value}`)
        .join(', ');
      return answer(
        r,
        `triggered ${r.type} ${r.event.id} (${related})${r.delivery ? `; delivering it to ${r.delivery.url} as ${r.delivery.id}` : ''}`,
      );
    },
  }),
  tool({
    name: 'advance_clock',
    title: 'Advance the sandbox clock',
    description:
      'Move sandbox time forward (never back): expiries, renewals, delayed outcomes and webhook retries that fall due happen now. Answers what the jump caused.',
    input: advanceSchema,
    output: clockAdvanceView,
    annotations: ADDS,
    route: { method: 'post', path: '/_sandbox/clock/advance', in: 'body' },
    async run(client, args) {
      const view = await client.post<ClockAdvanceView>('/clock/advance', args);
      return answer(view, advanceSummary(view));
    },
  }),
  tool({
    name: 'script_token',
    title: "Script a saved card's next charges",
    description:
      'Queue what the next charges on a saved token do, one each: "approve" or a decline code ("insufficient_funds", "expired_card", ...). Renewals then meet those outcomes in order; once used up, the card\'s own outcome applies. Rehearses a failed renewal without a special card.',
    input: scriptTokenToolSchema,
    output: tokenOutcomesView,
    annotations: ADDS,
    route: { method: 'post', path: '/_sandbox/tokens/:id/outcomes', in: 'body' },
    async run(client, { token, ...body }) {
      const view = await client.post<TokenOutcomesView>(`/tokens/${encodeURIComponent(token)}/outcomes`, body);
      return answer(view, `the next charges on ${view.token} (merchant ${view.merchant}) do, in order: ${view.outcomes.join(', ')}`);
    },
  }),
  tool({
    name: 'set_faults',
    title: 'Inject faults',
    description:
      'Add a fault rule: webhooks duplicated, delayed, failed or reordered ("duplicate=2", "url=http://127.0.0.1:3000/hook:fail-first=2"), or API answers of a route failed ("route=POST /v1/payments:status=503,p=0.2"). Remove them with clear_faults.',
    input: faultRuleSchema,
    output: faultsSetView,
    annotations: ADDS,
    route: { method: 'post', path: '/_sandbox/faults', in: 'body' },
    async run(client, args) {
      const r = await client.post<FaultsSetView>('/faults', args);
      return answer(
        r,
        `added ${r.added.map((rule) => `${rule.id} (${rule.spec})`).join(', ') || 'no rule'}; ${plural(r.data.length, 'rule')} in force`,
      );
    },
  }),
  tool({
    name: 'clear_faults',
    title: 'Remove faults',
    description: 'Remove one fault rule by id, or every rule.',
    input: clearFaultsToolSchema,
    output: faultsDeletedView,
    annotations: REMOVES,
    async run(client, { id }) {
      const r = await client.delete<FaultsDeletedView>(id === undefined ? '/faults' : `/faults/${encodeURIComponent(id)}`);
      return answer(r, `removed ${plural(r.deleted, 'fault rule')}`);
    },
  }),
  tool({
    name: 'list_deliveries',
    title: 'List webhook deliveries',
    description: 'The webhook deliveries, newest first, with filters: status, event, event_id, url, merchant, since.',
    input: deliveryQuery,
    output: listOf(deliveryView),
    annotations: READS,
    route: { method: 'get', path: '/_sandbox/deliveries', in: 'query' },
    async run(client, args) {
      const page = await client.get<ListView<DeliveryView>>('/deliveries', args as Record<string, string | number | undefined>);
      return answer(
        page,
        deliveryListLines(page.data).join('\n') + (page.has_more ? '\n(more: a higher limit, or narrow the filters)' : ''),
      );
    },
  }),
  tool({
    name: 'show_delivery',
    title: 'Show a delivery',
    description:
      'One delivery: the exact request (headers and body, as signed), every attempt with the answer, latency and error, and for an attempt the handler refused (400, 401, 403) the signature diagnosis of what was sent.',
    input: showDeliveryToolSchema,
    output: deliveryDetailView,
    annotations: READS,
    async run(client, { id }) {
      const d = await client.get<DeliveryDetailView>(`/deliveries/${encodeURIComponent(id)}`);
      return answer(d, deliveryDetailLines(d).join('\n'));
    },
  }),
  tool({
    name: 'replay_delivery',
    title: 'Replay a delivery',
    description:
      'Send a delivery (whd_...) or an event (evt_...) again now, freshly signed, once, optionally to another URL (to): a duplicate your handler must shrug off.',
    input: replayDeliveryToolSchema,
    output: deliveryView,
    annotations: ADDS,
    route: { method: 'post', path: '/_sandbox/deliveries/:id/replay', in: 'body' },
    async run(client, { id, ...body }) {
      const path = id.startsWith('evt_') ? `/events/${encodeURIComponent(id)}/replay` : `/deliveries/${encodeURIComponent(id)}/replay`;
      const d = await client.post<DeliveryView>(path, body);
      return answer(d, `replaying ${d.event} ${d.event_id} as ${d.id} to ${d.url} (a manual delivery: tried once, never retried)`);
    },
  }),
  tool({
    name: 'diagnose_signature',
    title: 'Diagnose a webhook signature',
    description:
      "Why your handler's signature check fails: give the headers and the raw body it received and the secret it verified with; the sandbox compares them with what it sent and signed (a re-serialised body, a wrong or trimmed secret, a stale timestamp...).",
    input: diagnoseSignatureSchema,
    output: signatureDiagnosisView,
    annotations: READS,
    route: { method: 'post', path: '/_sandbox/signatures/diagnose', in: 'body' },
    async run(client, args) {
      const d = await client.post<SignatureDiagnosisView>('/signatures/diagnose', args);
      return answer(d, `${d.valid ? 'valid' : `invalid (${d.cause})`}: ${d.message}`);
    },
  }),
  tool({
    name: 'audit_webhooks',
    title: 'Audit a webhook handler',
    description:
      "Grade the webhook handler at url: send it signed, forged, stale, tampered, duplicate, unknown, out-of-order and large deliveries of this sandbox's events and judge each answer; passed is false when a must-pass case failed.",
    input: auditWebhooksToolSchema,
    output: auditResultView,
    annotations: ADDS,
    run: audit,
  }),
  tool({
    name: 'wait_for_delivery',
    title: 'Wait for a webhook delivery',
    description:
      "Wait until a webhook delivery of an event type (or of a payment's events) to a receiver URL succeeded (or failed for good, or was queued at all), up to a timeout; a failed wait says what arrived instead.",
    input: waitForDeliveryToolSchema,
    output: waitedDeliveryView,
    annotations: READS,
    run: waitForIt,
  }),
  tool({
    name: 'reset',
    title: "Reset a merchant's state",
    description:
      "Empty one merchant's state (payments, events, deliveries, endpoints, tokens...) and leave every other merchant as it is; the merchant and its credentials stay.",
    input: resetToolSchema,
    output: merchantResetView,
    annotations: REMOVES,
    route: { method: 'post', path: '/_sandbox/reset', in: 'body' },
    async run(client, args) {
      const r = await client.post<MerchantResetView>('/reset', args);
      const removed = Object.entries(r.removed)
        .filter(([, n]) => n > 0)
        .map(([table, n]) => `${n} ${table}`);
      return answer(r, `reset ${r.merchant}: removed ${removed.join(', ') || 'nothing'}`);
    },
  }),
  tool({
    name: 'delete_merchant',
    title: 'Delete a merchant',
    description: 'Delete a merchant create_merchant made, with everything it owns (seeded merchants are refused).',
    input: deleteMerchantToolSchema,
    output: deletedMerchantView,
    annotations: REMOVES,
    async run(client, { id }) {
      const r = await client.delete<DeletedMerchantView>(`/merchants/${encodeURIComponent(id)}`);
      return answer(r, `deleted merchant ${r.id}`);
    },
  }),
];
