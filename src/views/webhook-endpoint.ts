// A /v1/ webhook endpoint as the API shows it. The signing secret is in the answer only when it is
// new (create, rotate_secret); every other answer leaves it out.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { SIGNATURE_MODES } from '../domain/vocabularies.js';
import { EVENT_TYPE_NAMES } from '../domain/event-types.js';
import type { WebhookEndpoint } from '../store/webhook-endpoints-repo.js';
import { iso, isoOrNull, isoTime } from './time.js';

/** A webhook endpoint as the API answers it; create and rotate_secret answer webhookEndpointWithSecretView(). */
export const webhookEndpointView = lazySchema(() =>
  z
    .strictObject({
      id: z.string().describe('we_...'),
      object: z.literal('webhook_endpoint'),
      url: z.string().meta({ format: 'uri' }),
      events: z.array(z.union([z.enum(EVENT_TYPE_NAMES), z.literal('*')])).describe('event names, or ["*"]'),
      description: z.string(),
      enabled: z.boolean(),
      signature: z
        .enum(SIGNATURE_MODES)
        .nullable()
        .describe('how its deliveries are signed: "plain", "timestamped" or "standard"; null follows the sandbox\'s --signature'),
      previous_secret_expires_at: isoTime
        .nullable()
        .describe('until when the secret replaced by the last rotation also signs; null if never rotated'),
      created_at: isoTime,
      updated_at: isoTime,
    })
    .meta({ id: 'WebhookEndpoint' }),
);

/** The answer to create and rotate_secret: the endpoint with its new signing secret. */
export const webhookEndpointWithSecretView = lazySchema(() =>
  webhookEndpointView()
    .extend({ secret: z.string().describe('whsec_...: the signing secret; only these two answers show it') })
    .meta({ id: 'WebhookEndpointWithSecret' }),
);

/** The endpoint object's TS type (`secret` only in the answers to create and rotate_secret). */
export type WebhookEndpointView = z.infer<ReturnType<typeof webhookEndpointView>> & { secret?: string };

/** The answer to DELETE /v1/webhook_endpoints/{id}. */
export const deletedWebhookEndpointView = lazySchema(() =>
  z.strictObject({
    id: z.string(),
    object: z.literal('webhook_endpoint'),
    deleted: z.literal(true),
  }),
);

/** The endpoint as the API shows it; `withSecret` only for create and rotate_secret. */
export function toWebhookEndpointView(endpoint: WebhookEndpoint, withSecret = false): WebhookEndpointView {
  return {
    id: endpoint.id,
    object: 'webhook_endpoint',
    url: endpoint.url,
    events: endpoint.events as WebhookEndpointView['events'],
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
