// The arguments of the MCP server's tools (src/mcp/tools.ts). A tool that stands for a control
// route takes that route's own schema (trigger_event is POST /_sandbox/events/trigger's body, list_deliveries
// GET /_sandbox/deliveries's query); what a route has in its path (an id) is added to it here, so
// each field has one definition and the tools cannot drift from the control API (test/mcp/ checks).
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { parseDuration } from '../domain/duration.js';
import { OUTCOME_SPECS } from '../domain/outcome-spec.js';
import { TEST_CARDS } from '../domain/outcomes.js';
import { DELIVERY_WAIT_STATUSES, orList, PAYMENT_FAMILIES, SIGNATURE_MODES } from '../domain/vocabularies.js';
import { authenticateSchema } from './authentication.js';
import { deliveryQuery, replayBody } from './deliveries.js';
import { resetSchema } from './state.js';
import { scriptTokenSchema } from './token-outcomes.js';
import { DURATION_PATTERN, wordsPattern } from './patterns.js';
import { createPaymentSchema } from './v1-payments.js';
import { cardSchema } from './v1-tokens.js';
import { httpUrl } from './v1-common.js';

/** The longest a tool waits for something to happen (wait_for_delivery). */
export const MAX_TOOL_WAIT_MS = 5 * 60_000;

/** A duration of real time a tool waits, at most MAX_TOOL_WAIT_MS. */
function waitDuration(what: string, example: string) {
  return z
    .string()
    .refine((text) => {
      const ms = parseDuration(text);
      return ms !== undefined && ms > 0 && ms <= MAX_TOOL_WAIT_MS;
    }, `${what} must be a duration above 0 and at most 5m, such as "${example}"`)
    .meta({ pattern: DURATION_PATTERN })
    .describe(`how long to wait in real time, a duration such as "${example}" (at most 5m)`);
}

const merchant = lazySchema(() =>
  z.string().min(1).max(100).describe('a merchant id such as mer_sandbox, or one create_merchant made (default: the first merchant)'),
);

/** An id the control API takes in its path. */
const pathId = (what: string) => z.string().min(1).max(100).describe(what);

/** create_payment: a payment through the S2S API or the /v1/ API, with a test card or a forced outcome. */
export const createPaymentToolSchema = lazySchema(() =>
  z.strictObject({
    api: z
      .enum(PAYMENT_FAMILIES)
      .default('v1')
      .describe('"v1" (POST /v1/payments with the merchant\'s API key, the default) or "s2s" (POST /api/s2s with its terminal)'),
    merchant: merchant().optional(),
    card: cardSchema()
      .shape.number.default('4242424242424242')
      .describe(
        `a test card number: ${TEST_CARDS.map((card) => `${card.number} (${card.description})`).join('; ')}; any other valid number asks for 3-D Secure, then approves`,
      ),
    outcome: z
      .string()
      .refine((word) => OUTCOME_SPECS.includes(word.trim().toLowerCase()), {
        message: `outcome must be one of ${OUTCOME_SPECS.join(', ')}`,
      })
      .meta({ pattern: wordsPattern(OUTCOME_SPECS, { caseless: true, trimmed: true }) })
      .optional()
      .describe(
        'force what happens instead of the card\'s own outcome (the X-Sandbox-Outcome header), e.g. "challenge:fail", "decline:insufficient_funds", "approve"',
      ),
    amount: createPaymentSchema().shape.amount.default(1050),
    currency: createPaymentSchema().shape.currency.default('EUR'),
    reference: createPaymentSchema().shape.reference,
    capture: createPaymentSchema().shape.capture,
    metadata: createPaymentSchema().shape.metadata.describe(`${createPaymentSchema().shape.metadata.description} (v1 only)`),
    webhook_url: httpUrl('webhook_url', 'http://127.0.0.1:3000/webhooks')
      .optional()
      .describe(
        'your handler\'s URL, which gets this payment\'s webhooks, e.g. "http://127.0.0.1:3000/webhooks" (required with api "s2s")',
      ),
    return_url: httpUrl('return_url', 'https://shop.example/return')
      .optional()
      .describe('where the customer returns after 3-D Secure (default https://shop.example/return, never fetched)'),
  }),
);

/** authenticate: POST /_sandbox/transactions/{id}/authenticate's body, and the id. */
export const authenticateToolSchema = lazySchema(() =>
  authenticateSchema()
    .extend({ id: pathId('the S2S transID or the /v1/ payment id (pay_...) whose 3-D Secure or bank challenge is open') })
    .strict(),
);

/** clear_faults: DELETE /_sandbox/faults, or /_sandbox/faults/{id} for one rule. */
export const clearFaultsToolSchema = lazySchema(() =>
  z.strictObject({
    id: pathId('the id of one fault rule to remove (fr_...); leave it out to remove every rule').optional(),
  }),
);

/** show_delivery: GET /_sandbox/deliveries/{id}. */
export const showDeliveryToolSchema = lazySchema(() => z.strictObject({ id: pathId('a delivery id (whd_...), as list_deliveries shows') }));

/** replay_delivery: POST /_sandbox/deliveries/{id}/replay (or /events/{id}/replay for an evt_ id)'s body, and the id. */
export const replayDeliveryToolSchema = lazySchema(() =>
  replayBody()
    .extend({ id: pathId('a delivery id (whd_...) or an event id (evt_...) to send again, once, as a new manual delivery') })
    .strict(),
);

/** script_token: POST /_sandbox/tokens/{id}/outcomes's body, and the token. */
export const scriptTokenToolSchema = lazySchema(() =>
  scriptTokenSchema()
    .extend({ token: pathId("a merchant's own saved token (tok_...), as create_payment with setup_future_usage answers it") })
    .strict(),
);

/** delete_merchant: DELETE /_sandbox/merchants/{id}. */
export const deleteMerchantToolSchema = lazySchema(() =>
  z.strictObject({ id: pathId('the id of a merchant create_merchant made (mer_...)') }),
);

/** reset: POST /_sandbox/reset's body, scoped to one merchant (an agent never empties the others' state). */
export const resetToolSchema = lazySchema(() => resetSchema().required({ merchant: true }));

/** wait_for_delivery: waits until a delivery matching every field given is in the state asked for. */
export const waitForDeliveryToolSchema = lazySchema(() =>
  z.strictObject({
    event: deliveryQuery().shape.event,
    payment: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('only deliveries of events about this payment: a /v1/ payment id (pay_...) or an S2S transID'),
    url: deliveryQuery().shape.url.describe('only deliveries to this exact receiver URL, e.g. "http://127.0.0.1:3000/webhooks"'),
    merchant: deliveryQuery().shape.merchant,
    status: z
      .enum(DELIVERY_WAIT_STATUSES)
      .default('succeeded')
      .describe(
        `${orList(DELIVERY_WAIT_STATUSES, true)}: succeeded (a 2xx came back, the default), failed (retries exhausted) or any (queued at all)`,
      ),
    timeout: waitDuration('timeout', '30s').default('30s'),
  }),
);

/** audit_webhooks: grades the handler at `url` with the sandbox's events and the merchant's secret. */
export const auditWebhooksToolSchema = lazySchema(() =>
  z.strictObject({
    url: httpUrl('url', 'http://127.0.0.1:3000/webhooks').describe("your webhook handler's URL, e.g. http://127.0.0.1:3000/webhooks"),
    merchant: merchant().optional(),
    secret: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .describe("the secret your handler verifies with (default: the merchant's webhook secret)"),
    signature: z
      .enum(SIGNATURE_MODES)
      .default('plain')
      .describe(`the signature mode your handler verifies: ${orList(SIGNATURE_MODES, true)}`),
    header_prefix: z
      .string()
      .max(40)
      .default('Sandbox')
      .describe('the word in X-<prefix>-Signature: letters and digits, starting with a letter (default "Sandbox")'),
    timeout: z
      .string()
      .max(40)
      .meta({ pattern: DURATION_PATTERN })
      .default('5s')
      .describe('each answer must come within this time, a duration above 0 and at most 60s such as "5s" (the gateway allows 5s)'),
  }),
);

/** The arguments of the prompts (src/mcp/prompts.ts): all optional text, as MCP prompt arguments are. */
export const promptArguments = {
  webhook_url: z.string().optional().describe("your webhook handler's URL, e.g. http://127.0.0.1:3000/webhooks"),
  delivery_id: z.string().optional().describe('the delivery your handler refused (whd_...), if you know it'),
};

/** POST /_sandbox/mcp body: one JSON-RPC message of the Model Context Protocol (the SDK's transport checks the rest). */
export const mcpMessageSchema = lazySchema(() =>
  z
    .object({
      jsonrpc: z.literal('2.0'),
      id: z.union([z.string(), z.number().int()]).optional().describe('the request id; left out in a notification'),
      method: z.string().optional().describe('initialize, tools/list, tools/call, resources/read, prompts/get...'),
      params: z.record(z.string(), z.unknown()).optional(),
      result: z.unknown().optional(),
      error: z.unknown().optional(),
    })
    .describe('a JSON-RPC 2.0 message of the Model Context Protocol (Streamable HTTP transport)'),
);
