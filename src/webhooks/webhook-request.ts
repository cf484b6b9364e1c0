// The signed request of a webhook attempt: the headers and body the worker sends, the secrets that
// sign it (a registered endpoint's own, two while one rotates, else the merchant's), and what
// `webhooks show` previews and the audit reuses, so all three build the request the same way.
import type { Config } from '../config.js';
import { signatureHeaders, type WebhookSigning } from '../signatures/signing.js';
import type { Clock } from '../runtime/clock.js';
import type { Delivery } from '../store/deliveries-repo.js';
import type { Store } from '../store/store.js';
import { VERSION } from '../version.js';
import { present } from '../errors.js';

/** The request the worker is about to send. */
export interface OutgoingWebhook {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What signing a request reads of a delivery (`sandbox send` signs a body that is no delivery). */
export type SignedDelivery = Pick<Delivery, 'id' | 'eventId' | 'eventType' | 'url' | 'body' | 'contentType'>;

/** Finds how a delivery is signed: its mode and secrets (two while an endpoint's secret is rotating). */
export type SigningResolver = (delivery: Pick<Delivery, 'endpointId' | 'merchantId'>) => WebhookSigning;

/** Builds the request again as the worker would, with another timestamp or secrets (stale-timestamp, bad-signature). */
export type Resigner = (overrides: { timestamp?: number; secrets?: readonly string[] }) => OutgoingWebhook;

/** The W3C trace headers of one attempt: a child traceparent of its event's trace, and the caller's tracestate. */
export interface AttemptTrace {
  traceparent: string;
  tracestate: string | null;
}

/** The signed request of attempt number `attempt` (the worker's, and what `webhooks show` previews), with its trace headers when it has a trace. */
export function buildWebhookRequest(
  delivery: SignedDelivery,
  attempt: number,
  config: Pick<Config, 'headerPrefix'>,
  signing: WebhookSigning,
  timestamp: number,
  trace: AttemptTrace | null = null,
): OutgoingWebhook {
  const prefix = `x-${config.headerPrefix.toLowerCase()}`;
  return {
    url: delivery.url,
    body: delivery.body,
    headers: {
      'content-type': delivery.contentType,
      'user-agent': `paysandbox/${VERSION}`,
      // The event id is the message id: the same on every retry and replay, so receivers dedupe on it.
      // Its input a literal, not `{ ...signing, prefix, ... }` (CONTRIBUTING.md: copies that add fields on the request path).
      ...signatureHeaders({
        mode: signing.mode,
        secrets: signing.secrets,
        prefix: config.headerPrefix,
        id: delivery.eventId,
        timestamp,
        body: delivery.body,
      }),
      [`${prefix}-event-id`]: delivery.eventId,
      [`${prefix}-event-type`]: delivery.eventType,
      [`${prefix}-delivery-id`]: delivery.id,
      [`${prefix}-attempt`]: String(attempt),
      [`${prefix}-timestamp`]: String(timestamp),
      // Outside what any signature mode signs: a receiver's tracing reads them, its verification does not.
      ...(trace ? { traceparent: trace.traceparent } : {}),
      ...(trace?.tracestate ? { tracestate: trace.tracestate } : {}),
    },
  };
}

/**
 * How deliveries are signed: a registered endpoint's mode and secrets (its previous secret too while
 * a rotation's grace lasts, sandbox time), else the sandbox's mode and the merchant's secret. Built
 * from the store alone, so the worker has it before the services exist.
 */
export function webhookSigning({ store, config, clock }: { store: Store; config: Config; clock: Clock }): SigningResolver {
  return (delivery) => {
    const endpoint = delivery.endpointId ? store.webhookEndpoints.get(delivery.endpointId) : undefined;
    if (!endpoint)
      return {
        mode: config.signatureMode,
        secrets: [present(store.credentials.merchant(delivery.merchantId), `merchant ${delivery.merchantId}`).webhookSecret],
      };
    const secrets = [endpoint.secret];
    if (endpoint.previousSecret && endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > clock.now()) {
      secrets.push(endpoint.previousSecret);
    }
    return { mode: endpoint.signature ?? config.signatureMode, secrets };
  };
}

/** Signs attempt `attempt` of a delivery now (sandbox time), or with the overrides a fault asks for; `trace` adds its trace headers. */
export function signedRequest(
  delivery: Delivery,
  attempt: number,
  { config, clock, signing }: { config: Config; clock: Clock; signing: SigningResolver },
  overrides: { timestamp?: number; secrets?: readonly string[] } = {},
  trace: AttemptTrace | null = null,
): OutgoingWebhook {
  const signed = signing(delivery);
  return buildWebhookRequest(
    delivery,
    attempt,
    config,
    { mode: signed.mode, secrets: overrides.secrets ?? signed.secrets },
    overrides.timestamp ?? Math.floor(clock.now() / 1000),
    trace,
  );
}
