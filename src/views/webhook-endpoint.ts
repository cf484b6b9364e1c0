// A /v1/ webhook endpoint as the API shows it. The signing secret is in the answer only when it is
// new (create, rotate_secret); every other answer leaves it out.
import * as z from 'zod';
import { SIGNATURE_MODES } from '../crypto/signature.js';
import type { WebhookEndpoint } from '../store/webhook-endpoints-repo.js';
import { iso, isoOrNull, isoTime } from './time.js';

/** A webhook endpoint as the API answers it (`secret` only on create and rotate_secret). */
export const webhookEndpointView = z.strictObject({
  id: z.string().describe('we_...'),
  object: z.literal('webhook_endpoint'),
  url: z.string(),
  events: z.array(z.string()).describe('event names, or ["*"]'),
  description: z.string(),
  enabled: z.boolean(),
  signature: z.enum(SIGNATURE_MODES).nullable().describe('how its deliveries are signed: "plain", "timestamped" or "standard"; null follows the sandbox\'s --signature'),
  secret: z.string().optional().describe('whsec_...: present only in the answers to create and rotate_secret'),
  previous_secret_expires_at: isoTime.nullable().describe('until when the secret replaced by the last rotation also signs; null if never rotated'),
  created_at: isoTime,
  updated_at: isoTime,
});

/** The endpoint object's TS type. */
export type WebhookEndpointView = z.infer<typeof webhookEndpointView>;

/** The answer to DELETE /v1/webhook_endpoints/{id}. */
export const deletedWebhookEndpointView = z.strictObject({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) });

/** The endpoint as the API shows it; `withSecret` only for create and rotate_secret. */
export function toWebhookEndpointView(endpoint: WebhookEndpoint, withSecret = false): WebhookEndpointView {
  return {
    id: endpoint.id,
    object: 'webhook_endpoint',
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    enabled: endpoint.enabled,
    // null: signed in the sandbox's --signature mode (as Stripe's api_version null means the account's).
    signature: endpoint.signature,
    ...(withSecret ? { secret: endpoint.secret } : {}),
    // While set, deliveries carry a second signature made with the replaced secret.
    previous_secret_expires_at: endpoint.previousSecret !== null ? isoOrNull(endpoint.previousSecretExpiresAt) : null,
    created_at: iso(endpoint.createdAt),
    updated_at: iso(endpoint.updatedAt),
  };
}
