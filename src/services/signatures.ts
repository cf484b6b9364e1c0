// Signature diagnosis: why a merchant's webhook handler refuses a signature. The headers it
// received name a delivery (X-Sandbox-Delivery-Id, else X-Sandbox-Event-Id or webhook-id); the
// attempt it got is the one whose signature (else timestamp, else attempt number) it has, as the
// attempt log recorded it. With the secrets that signed it and every secret the sandbox holds, the
// rules of signatures/diagnosis.ts say what differs. Headers that name nothing known are
// diagnosed from the request alone.
import type { SignWebhookInput } from '../contracts/sign-webhook-schema.js';
import { newId } from '../domain/ids.js';
import { SandboxError } from '../errors.js';
import type { KnownSecret } from '../signatures/secret-diagnosis.js';
import { diagnoseSignature } from '../signatures/diagnosis.js';
import type { SentAttempt, SignatureDiagnosis } from '../signatures/findings.js';
import { oversizedSignatureHeader, type HeaderMap } from '../signatures/match.js';
import { shown } from '../signatures/findings.js';
import type { Delivery, DeliveryAttempt } from '../store/deliveries-repo.js';
import type { WebhookEndpoint } from '../store/webhook-endpoints-repo.js';
import { buildWebhookRequest, type SigningResolver } from '../webhooks/webhook-request.js';
import type { ServiceDeps } from './deps.js';
import { PREVIOUS_SECRET_LIFETIME_MS } from './webhook-endpoints.js';

/** What a webhook handler received: headers as node:http or a framework gives them, the raw body, the secret it verified with. */
export interface ReceivedWebhook {
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  body: string;
  secret?: string | undefined;
}

/** The answers of a handler that refuses a signature: Bad Request, Unauthorized, Forbidden. */
const REFUSALS: readonly number[] = [400, 401, 403];

/** Deliveries of one event the diagnosis reads at most, when only the event id is known. */
const EVENT_DELIVERIES = 100;

/** Header names in lower case, a repeated header's values joined as node:http joins them. */
function lowerCased(headers: ReceivedWebhook['headers']): HeaderMap {
  // No prototype: a header named __proto__ is a name like any other.
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = typeof value === 'string' ? value : value.join(', ');
  }
  return out;
}

/** An endpoint's secrets: the current one, and the one its last rotation replaced. */
function endpointSecrets(endpoint: WebhookEndpoint): KnownSecret[] {
  const owner = { kind: 'endpoint' as const, id: endpoint.id, merchantId: endpoint.merchantId };
  const secrets: KnownSecret[] = [{ value: endpoint.secret, owner }];
  if (endpoint.previousSecret !== null && endpoint.previousSecretExpiresAt !== null) {
    const until = endpoint.previousSecretExpiresAt;
    secrets.push({ value: endpoint.previousSecret, owner, replaced: { at: until - PREVIOUS_SECRET_LIFETIME_MS, until } });
  }
  return secrets;
}

/** The signature diagnosis use case. */
export class Signatures {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly signing: SigningResolver,
  ) {}

  /**
   * Why a received webhook's signature does (not) verify: {valid, cause, message} (SIGNATURE_CAUSES).
   * `checkedAt` is the wall-clock ms the handler checked the timestamp at (default now; the dashboard
   * passes an attempt's time, startedAt minus the clock's offset, to judge it as it was received).
   */
  diagnose(received: ReceivedWebhook, options: { checkedAt?: number } = {}): SignatureDiagnosis {
    const { clock, config } = this.deps;
    const headers = lowerCased(received.headers);
    const oversized = oversizedSignatureHeader(headers, config.headerPrefix);
    if (oversized) {
      const name = shown(oversized.header, config.headerPrefix);
      throw new SandboxError(
        'parameter_invalid',
        `headers.${name} ${oversized.problem}: pass the header exactly as your handler received it`,
        `headers.${name}`,
      );
    }
    const offset = clock.offset();
    const wall = options.checkedAt ?? clock.now() - offset;
    const { sent, named } = this.sentAttempt(headers);
    return diagnoseSignature(
      { headers, body: received.body, secret: received.secret },
      {
        prefix: config.headerPrefix,
        sent,
        named,
        secrets: this.knownSecrets(),
        time: { wall, sandbox: wall + offset, offset },
      },
    );
  }

  /**
   * Why a handler may have refused a recorded attempt it answered 400, 401 or 403: the diagnosis of
   * the request as sent, its timestamp judged at the wall-clock time the attempt was made (with
   * today's clock offset); undefined for any other answer (the dashboard's delivery page).
   */
  refusal(attempt: DeliveryAttempt): SignatureDiagnosis | undefined {
    if (attempt.responseStatus === null || !REFUSALS.includes(attempt.responseStatus)) return undefined;
    return this.diagnose(
      { headers: attempt.requestHeaders, body: attempt.requestBody },
      { checkedAt: attempt.startedAt - this.deps.clock.offset() },
    );
  }

  /** refusal() of each attempt, by attempt number: what the control API and the dashboard show of a delivery's attempts. */
  refusals(attempts: DeliveryAttempt[]): Map<number, SignatureDiagnosis | undefined> {
    return new Map(attempts.map((a) => [a.attempt, this.refusal(a)] as const));
  }

  /**
   * The headers the delivery worker would send with `body` now (sandbox time), signed with a
   * merchant's webhook secret or a registered endpoint's (both while its rotation lasts), in its mode
   * unless `signature` says another, with a new delivery id and attempt 1 (`sandbox send`).
   */
  sign(input: SignWebhookInput): Record<string, string> {
    const { store, config, clock } = this.deps;
    const endpoint = input.endpoint_id === undefined ? undefined : store.webhookEndpoints.get(input.endpoint_id);
    if (input.endpoint_id !== undefined && (!endpoint || endpoint.deletedAt !== null))
      throw new SandboxError(
        'resource_missing',
        `no webhook endpoint ${input.endpoint_id}; GET /v1/webhook_endpoints lists them`,
        'endpoint_id',
      );
    const merchantId = endpoint?.merchantId ?? input.merchant_id ?? '';
    if (!store.credentials.merchant(merchantId))
      throw new SandboxError('resource_missing', `no merchant ${merchantId}; GET /_sandbox/merchants lists them`, 'merchant_id');
    const delivery = {
      id: newId('whd'),
      eventId: input.event_id ?? newId('evt'),
      eventType: input.event_type,
      merchantId,
      endpointId: endpoint?.id ?? null,
      url: '',
      contentType: input.content_type,
      body: input.body,
    };
    const signing = this.signing(delivery);
    const mode = input.signature ?? signing.mode;
    return buildWebhookRequest(delivery, 1, config, { mode, secrets: signing.secrets }, Math.floor(clock.now() / 1000)).headers;
  }

  /** The attempt the headers name, or what they name when there is none to compare with. */
  private sentAttempt(headers: HeaderMap): { sent?: SentAttempt; named?: { what: string; known: boolean } } {
    const { deliveries } = this.deps.store;
    const p = `x-${this.deps.config.headerPrefix.toLowerCase()}`;
    const deliveryId = headers[`${p}-delivery-id`];
    const eventId = headers[`${p}-event-id`] ?? headers['webhook-id'];
    let candidates: Delivery[];
    if (deliveryId !== undefined) {
      const delivery = deliveries.get(deliveryId);
      if (!delivery) return { named: { what: `delivery ${deliveryId}`, known: false } };
      candidates = [delivery];
    } else if (eventId !== undefined) {
      candidates = deliveries.list({ eventId, limit: EVENT_DELIVERIES });
      if (candidates.length === 0) return { named: { what: `event ${eventId}`, known: false } };
    } else return {};
    const tried = candidates.flatMap((delivery) => deliveries.attempts(delivery.id).map((attempt) => ({ delivery, attempt })));
    const signature = (h: HeaderMap) => h[`${p}-signature`] ?? h['webhook-signature'];
    const timestamp = (h: HeaderMap) => h[`${p}-timestamp`] ?? h['webhook-timestamp'];
    const same = (pick: (h: HeaderMap) => string | undefined) => (t: { attempt: DeliveryAttempt }) =>
      pick(t.attempt.requestHeaders) !== undefined && pick(t.attempt.requestHeaders) === pick(headers);
    const latest = tried.reduce<(typeof tried)[number] | undefined>(
      (a, b) => (!a || b.attempt.startedAt > a.attempt.startedAt ? b : a),
      undefined,
    );
    const attemptNumber = (h: HeaderMap) => h[`${p}-attempt`];
    // In plain mode every attempt of a delivery carries the same signature: the attempt number
    // (else the timestamp) tells which one the handler had, so each attempt is diagnosed as itself.
    const found =
      tried.find((t) => same(signature)(t) && same(attemptNumber)(t)) ??
      tried.find((t) => same(signature)(t) && same(timestamp)(t)) ??
      tried.find(same(signature)) ??
      tried.find(same(timestamp)) ??
      tried.find(same(attemptNumber)) ??
      this.inFlightAttempt(candidates, headers, p) ??
      latest;
    // A delivery never tried yet was never received: there is nothing to compare with.
    if (!found) return { named: { what: deliveryId === undefined ? `event ${eventId}` : `delivery ${deliveryId}`, known: true } };
    const { delivery, attempt } = found;
    return {
      sent: {
        deliveryId: delivery.id,
        attempt: attempt.attempt,
        headers: attempt.requestHeaders,
        body: attempt.requestBody,
        fault: attempt.fault,
        signers: this.signersOf(delivery),
        mode: this.signing(delivery).mode,
      },
    };
  }

  /**
   * The attempt the headers name when its record is not written yet: the handler checks (and
   * `sandbox receive` asks) while the sandbox still waits for its answer, and the worker records an
   * attempt only once it is answered. Built again as the worker built it, from the delivery, the
   * attempt number and the timestamp the headers carry; signing is deterministic, so it is the
   * request that was sent (a fault that reshaped it is known once the attempt is recorded).
   */
  private inFlightAttempt(
    candidates: readonly Delivery[],
    headers: HeaderMap,
    p: string,
  ): { delivery: Delivery; attempt: DeliveryAttempt } | undefined {
    const number = Number(headers[`${p}-attempt`]);
    const timestamp = Number(headers[`${p}-timestamp`] ?? headers['webhook-timestamp']);
    const delivery = candidates.length === 1 ? candidates[0] : undefined;
    if (!delivery || !Number.isSafeInteger(number) || number < 1 || !Number.isSafeInteger(timestamp)) return undefined;
    if (number !== delivery.attempts + 1 || delivery.status !== 'pending') return undefined;
    const request = buildWebhookRequest(delivery, number, this.deps.config, this.signing(delivery), timestamp);
    const attempt: DeliveryAttempt = {
      deliveryId: delivery.id,
      attempt: number,
      startedAt: timestamp * 1000,
      requestHeaders: request.headers,
      requestBody: request.body,
      responseStatus: null,
      responseHeaders: null,
      responseBody: null,
      latencyMs: null,
      errorKind: null,
      errorMessage: null,
      fault: null,
    };
    return { delivery, attempt };
  }

  /** The secrets that may have signed a delivery: its endpoint's (current and replaced), else its merchant's. */
  private signersOf(delivery: Delivery): KnownSecret[] {
    const { store } = this.deps;
    const endpoint = delivery.endpointId === null ? undefined : store.webhookEndpoints.get(delivery.endpointId);
    if (endpoint) return endpointSecrets(endpoint);
    const merchant = store.credentials.merchant(delivery.merchantId);
    return merchant ? [{ value: merchant.webhookSecret, owner: { kind: 'merchant', id: merchant.id, merchantId: merchant.id } }] : [];
  }

  /** Every secret the sandbox holds: each merchant's webhook secret and each endpoint's, deleted endpoints included. */
  private knownSecrets(): KnownSecret[] {
    const { store } = this.deps;
    const merchants = store.credentials
      .merchants()
      .map((m): KnownSecret => ({ value: m.webhookSecret, owner: { kind: 'merchant', id: m.id, merchantId: m.id } }));
    return [...merchants, ...store.webhookEndpoints.all().flatMap(endpointSecrets)];
  }
}
