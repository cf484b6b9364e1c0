// Registered webhook endpoints: CRUD for /v1/webhook_endpoints and the secrets that sign the
// deliveries to them (the current one, plus the previous one for 24 h after a rotation; the worker
// picks them per delivery with webhookSigning, webhooks/webhook-request.ts). The EventPublisher
// sends every published event to each subscribed endpoint of its merchant.
import { randomBytes } from 'node:crypto';
import { newId } from '../domain/ids.js';
import type { SignatureMode } from '../domain/vocabularies.js';
import { SandboxError } from '../errors.js';
import { refuseControlTarget } from './control-target.js';
import type { WebhookEndpoint } from '../store/webhook-endpoints-repo.js';
import type { ServiceDeps } from './deps.js';
import { cursorRow, readPage } from './pagination.js';
import type { Page } from '../views/list.js';

/** How long the secret replaced by a rotation keeps signing (sandbox clock). */
export const PREVIOUS_SECRET_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** What a merchant sends to create an endpoint. */
export interface EndpointInput {
  url: string;
  events: string[];
  description?: string | undefined;
  enabled?: boolean | undefined;
  /** The endpoint's own signature mode; null (or absent on create) follows the sandbox's --signature. */
  signature?: SignatureMode | null | undefined;
}

/** The fields an update may change; absent ones stay as they are. */
export type EndpointPatch = Partial<EndpointInput>;

/** One page of a merchant's endpoints. */
export type EndpointPage = Page<WebhookEndpoint>;

/**
 * A new signing secret: whsec_ and 256 random bits in padded standard base64, the form Standard
 * Webhooks libraries decode (base64url's - and _ are refused by some), so it serves every mode
 * (endpoints and merchants made on demand).
 */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The webhook endpoint use cases. */
export class WebhookEndpoints {
  constructor(private readonly deps: ServiceDeps) {}

  /** Registers an endpoint; the answer is the only time (with rotation) its secret is shown. */
  create(merchantId: string, input: EndpointInput): WebhookEndpoint {
    refuseControlTarget(input.url, 'url', this.deps.config);
    const now = this.deps.clock.now();
    const endpoint: WebhookEndpoint = {
      id: newId('we'),
      merchantId,
      url: input.url,
      events: input.events,
      description: input.description ?? '',
      enabled: input.enabled ?? true,
      signature: input.signature ?? null,
      secret: newSigningSecret(),
      previousSecret: null,
      previousSecretExpiresAt: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    this.deps.store.webhookEndpoints.insert(endpoint);
    return endpoint;
  }

  /** The merchant's endpoint; another merchant's or a deleted one is the same 404 as a missing one. */
  get(merchantId: string, id: string): WebhookEndpoint {
    const endpoint = this.deps.store.webhookEndpoints.get(id);
    if (!endpoint || endpoint.merchantId !== merchantId || endpoint.deletedAt !== null) {
      throw new SandboxError('resource_missing', `no webhook endpoint ${id}; list yours with GET /v1/webhook_endpoints`, 'id');
    }
    return endpoint;
  }

  /** Newest first; `startingAfter` is the id of the last endpoint of the previous page. */
  list(merchantId: string, limit: number, startingAfter?: string): EndpointPage {
    const cursor = cursorRow(
      startingAfter,
      (id) => {
        const row = this.deps.store.webhookEndpoints.get(id);
        // Another merchant's endpoint is a 404 exactly like a missing one, as on every /v1/ list.
        return row && row.merchantId === merchantId && row.deletedAt === null ? row : undefined;
      },
      `no such webhook endpoint: ${startingAfter}; pass the id of the last endpoint of the previous page as starting_after`,
    );
    return readPage(limit, (n) => this.deps.store.webhookEndpoints.list({ merchantId, startingAfter: cursor, limit: n }));
  }

  /** Changes url, events, description, enabled or signature. */
  update(merchantId: string, id: string, patch: EndpointPatch): WebhookEndpoint {
    refuseControlTarget(patch.url, 'url', this.deps.config);
    const { store, clock } = this.deps;
    return store.tx(() => {
      const endpoint = this.get(merchantId, id);
      const updated: WebhookEndpoint = {
        ...endpoint,
        url: patch.url ?? endpoint.url,
        events: patch.events ?? endpoint.events,
        description: patch.description ?? endpoint.description,
        enabled: patch.enabled ?? endpoint.enabled,
        // null is a choice here (back to the sandbox's mode), so only an absent field keeps the old one.
        signature: patch.signature === undefined ? endpoint.signature : patch.signature,
        updatedAt: clock.now(),
      };
      store.webhookEndpoints.update(updated);
      return updated;
    });
  }

  /** Stops sending events to the endpoint. Deliveries already queued are still attempted. */
  delete(merchantId: string, id: string): WebhookEndpoint {
    const { store, clock } = this.deps;
    return store.tx(() => {
      const endpoint = this.get(merchantId, id);
      store.webhookEndpoints.delete(id, clock.now());
      return endpoint;
    });
  }

  /** A new secret; the replaced one keeps signing (second signature) for 24 h of sandbox time. */
  rotateSecret(merchantId: string, id: string): WebhookEndpoint {
    const { store, clock } = this.deps;
    return store.tx(() => {
      const endpoint = this.get(merchantId, id);
      const now = clock.now();
      const rotated: WebhookEndpoint = {
        ...endpoint,
        secret: newSigningSecret(),
        previousSecret: endpoint.secret,
        previousSecretExpiresAt: now + PREVIOUS_SECRET_LIFETIME_MS,
        updatedAt: now,
      };
      store.webhookEndpoints.update(rotated);
      return rotated;
    });
  }
}
