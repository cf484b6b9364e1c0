// The document's top-level `webhooks` (OpenAPI 3.1): what the sandbox POSTs to merchants. One entry
// per /v1/ event name (the spec §6.2 JSON envelope, its data per event name) and the S2S form
// webhook (the spec §6.1 query string, or data=<cipher> with encryption_method aes256).
import { EVENT_TYPE_NAMES, EVENT_TYPES } from '../../domain/event-types.js';
import { encryptedS2SWebhook, eventEnvelopeSchema, s2sWebhookFields } from '../../views/event.js';
import type { Components } from './components.js';

/** The headers every delivery carries (docs/webhooks.md; --header-prefix renames "Sandbox"). */
const DELIVERY_HEADERS = [
  {
    name: 'X-Sandbox-Signature',
    description: 'sha256=<hex HMAC-SHA256 of the raw body> (plain mode; timestamped signs "<timestamp>.<body>"); absent in standard mode',
  },
  { name: 'X-Sandbox-Signature-Previous', description: "during a secret rotation: the replaced secret's signature" },
  { name: 'X-Sandbox-Event-Id', description: 'evt_... (the S2S form webhook: the transaction event)' },
  { name: 'X-Sandbox-Delivery-Id', description: 'dlv_...: the same on every retry of one delivery' },
  { name: 'X-Sandbox-Attempt', description: '1 for the first try, then 2, 3, ...' },
  { name: 'X-Sandbox-Timestamp', description: 'unix seconds of this attempt' },
  { name: 'webhook-id', description: 'standard mode (Standard Webhooks): the event id, the same on every retry' },
  { name: 'webhook-timestamp', description: 'standard mode: unix seconds of this attempt' },
  {
    name: 'webhook-signature',
    description: 'standard mode: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">, space-separated during a rotation',
  },
].map(({ name, description }) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } }));

const ANSWERS = {
  '200': { description: 'any 2xx within 5 s acknowledges the delivery' },
  '500': { description: 'anything else (or no answer in 5 s) is retried on the retry profile' },
};

/** The `webhooks` object: one operation per event name, and the S2S form webhook, each with its recorded example. */
export function webhookOperations(components: Components, examples: Record<string, unknown>): Record<string, unknown> {
  const example = (name: string) => (examples[name] === undefined ? {} : { example: examples[name] });
  const webhooks: Record<string, unknown> = {};
  for (const type of EVENT_TYPE_NAMES) {
    webhooks[type] = {
      post: {
        operationId: `webhook${type.replace(/[._](.)/g, (_, ch: string) => ch.toUpperCase()).replace(/^./, (ch) => ch.toUpperCase())}`,
        summary: `${type}: ${EVENT_TYPES[type]}`,
        tags: ['Webhooks'],
        security: [],
        parameters: DELIVERY_HEADERS,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: components.of(eventEnvelopeSchema(type), 'output'), ...example(type) } },
        },
        responses: ANSWERS,
      },
    };
  }
  webhooks['s2s.transaction'] = {
    post: {
      operationId: 'webhookS2sTransaction',
      summary: "An S2S transaction changed: POSTed to the payment's webhook_url as a form (spec §6.1)",
      tags: ['Webhooks'],
      security: [],
      parameters: DELIVERY_HEADERS,
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: { oneOf: [components.of(s2sWebhookFields(), 'output'), components.of(encryptedS2SWebhook(), 'output')] },
            ...example('s2s.transaction'),
          },
        },
      },
      responses: ANSWERS,
    },
  };
  return webhooks;
}
