// What the MCP server's tools answer besides the control API's own views (src/mcp/tools.ts): a
// payment made through either API in one shape, a wait's result, and a webhook audit's verdicts.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { PAYMENT_FAMILIES, SIGNATURE_MODES } from '../domain/vocabularies.js';
import { deliveryView } from './delivery.js';
import { paymentView } from './payment.js';
import { s2sPaymentView } from './s2s.js';

/** create_payment: the payment in both APIs' terms, and the API's own answer under `answer`. */
export const createdPaymentView = lazySchema(() =>
  z.object({
    api: z.enum(PAYMENT_FAMILIES),
    merchant: z.string().describe('the merchant the payment belongs to'),
    id: z.string().describe('the /v1/ payment id (pay_...) or the S2S transID: what authenticate and wait_for_delivery take'),
    status: z.string().describe('the /v1/ status (succeeded, requires_action, failed...) or the S2S status text'),
    authentication_url: z
      .string()
      .nullable()
      .describe('the 3-D Secure or bank page that waits for the customer; null when none waits (finish it with authenticate)'),
    answer: z.union([paymentView(), s2sPaymentView()]).describe('what POST /v1/payments or POST /api/s2s answered'),
  }),
);

/** The created payment's TS type. */
export type CreatedPaymentView = z.infer<ReturnType<typeof createdPaymentView>>;

/** wait_for_delivery: the delivery it waited for, and how long that took. */
export const waitedDeliveryView = lazySchema(() =>
  z.object({
    delivery: deliveryView(),
    waited_ms: z.number().int().describe('real milliseconds the wait took'),
  }),
);

/** The waited delivery's TS type. */
export type WaitedDeliveryView = z.infer<ReturnType<typeof waitedDeliveryView>>;

/** One case of a webhook audit. */
const auditCaseView = lazySchema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    level: z.enum(['must-pass', 'advice']),
    result: z.enum(['pass', 'fail', 'skip']),
    reason: z.string().describe('the status and latency, and what a correct handler does when it failed'),
    status: z.number().int().nullable(),
    latencyMs: z.number().nullable(),
  }),
);

/** audit_webhooks: each case's verdict (the shape of `sandbox audit-webhooks --json`). */
export const auditResultView = lazySchema(() =>
  z.object({
    url: z.string(),
    passed: z.boolean().describe('true when no must-pass case failed'),
    signatureMode: z.enum(SIGNATURE_MODES),
    headerPrefix: z.string(),
    timeoutMs: z.number().int(),
    source: z.string().describe("where the events came from: the sandbox's URL"),
    merchantId: z.string(),
    cases: z.array(auditCaseView()),
    summary: z.object({ pass: z.number().int(), fail: z.number().int(), skip: z.number().int(), mustPassFailed: z.number().int() }),
  }),
);

/** POST /_sandbox/mcp answer: the JSON-RPC response to the message. */
export const mcpAnswerView = lazySchema(() =>
  z.object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number()]).nullable(),
    result: z.record(z.string(), z.unknown()).optional().describe("the method's result, e.g. {content, structuredContent} of tools/call"),
    error: z.object({ code: z.number().int(), message: z.string() }).optional(),
  }),
);
