// Webhook deliveries as the control API shows them: the summary row of lists, and one delivery
// with the request it sends (or sent) and every attempt.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { Delivery, DeliveryAttempt } from '../store/deliveries-repo.js';
import { DELIVERY_STATUSES } from '../domain/vocabularies.js';
import type { SignatureDiagnosis } from '../signatures/findings.js';
import { signatureDiagnosisView, toSignatureDiagnosisView } from './signature-diagnosis.js';
import { iso, isoOrNull, isoTime } from './time.js';

/** How much of a response body an attempt shows (the log keeps 16 KiB). */
const RESPONSE_EXCERPT_CHARS = 1000;

/** A delivery as lists show it. */
export const deliveryView = lazySchema(() =>
  z
    .object({
      id: z.string().describe('dlv_...'),
      event_id: z.string().describe('evt_...'),
      event: z.string().describe('the event name, e.g. "payment.authorized"'),
      url: z.string(),
      endpoint_id: z.string().nullable().describe("we_... when a registered endpoint receives it; null for a payment's webhook_url"),
      merchant_id: z.string(),
      status: z.enum(DELIVERY_STATUSES),
      manual: z.boolean().describe('true for replays and triggers sent to a URL: never retried'),
      attempts: z.number().int(),
      last_response_status: z.number().int().nullable(),
      last_error: z.string().nullable(),
      next_attempt_at: isoTime.nullable().describe('when the next attempt is due; null unless pending'),
      created_at: isoTime,
      updated_at: isoTime,
    })
    .meta({ id: 'Delivery' }),
);

/** The delivery row's TS type. */
export type DeliveryView = z.infer<ReturnType<typeof deliveryView>>;

/** One attempt of a delivery. */
export const attemptView = lazySchema(() =>
  z.object({
    attempt: z.number().int(),
    at: isoTime,
    response_status: z.number().int().nullable(),
    latency_ms: z.number().nullable(),
    response_excerpt: z.string().nullable().describe(`the first ${RESPONSE_EXCERPT_CHARS} characters of the answer`),
    error_kind: z.string().nullable().describe('refused, timeout, tls, dns, reset, redirect, http_status, invalid_url or injected'),
    error: z.string().nullable(),
    fault: z.string().nullable().describe('the injected fault that shaped the attempt'),
    signature_check: signatureDiagnosisView()
      .nullable()
      .describe(
        'when the handler answered 400, 401 or 403 (a refused signature, most often): the signature diagnosis of what this attempt sent, judged when it was sent; null otherwise',
      ),
  }),
);

/** The attempt's TS type. */
export type AttemptView = z.infer<ReturnType<typeof attemptView>>;

/** The request a delivery sends: the next attempt's (not sent yet) or the last one's. */
export const deliveryRequestView = lazySchema(() =>
  z.object({
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.string(),
    sent: z.boolean(),
    note: z.string(),
  }),
);

/** One delivery with its request and every attempt. */
export const deliveryDetailView = lazySchema(() =>
  deliveryView().extend({
    content_type: z.string(),
    request: deliveryRequestView(),
    attempt_log: z.array(attemptView()).describe('oldest first'),
  }),
);

/** The delivery detail's TS type. */
export type DeliveryDetailView = z.infer<ReturnType<typeof deliveryDetailView>>;

/** A delivery as lists show it. */
export function toDeliveryView(d: Delivery): DeliveryView {
  return {
    id: d.id,
    event_id: d.eventId,
    event: d.eventType,
    url: d.url,
    endpoint_id: d.endpointId,
    merchant_id: d.merchantId,
    status: d.status,
    manual: d.manual,
    attempts: d.attempts,
    last_response_status: d.lastStatus,
    last_error: d.lastError,
    next_attempt_at: d.status === 'pending' ? isoOrNull(d.nextAttemptAt) : null,
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
  };
}

/** One attempt as the delivery detail shows it, with its signature check when the handler refused it. */
export function toAttemptView(a: DeliveryAttempt, check: SignatureDiagnosis | undefined): AttemptView {
  return {
    attempt: a.attempt,
    at: iso(a.startedAt),
    response_status: a.responseStatus,
    latency_ms: a.latencyMs,
    response_excerpt: a.responseBody === null ? null : a.responseBody.slice(0, RESPONSE_EXCERPT_CHARS),
    error_kind: a.errorKind,
    error: a.errorMessage,
    fault: a.fault,
    signature_check: check ? toSignatureDiagnosisView(check) : null,
  };
}

/** A delivery with `request` (what it sends or sent) and its attempts, each with its signature check by attempt number. */
export function toDeliveryDetailView(
  d: Delivery,
  request: z.infer<ReturnType<typeof deliveryRequestView>>,
  attempts: DeliveryAttempt[],
  checks: ReadonlyMap<number, SignatureDiagnosis | undefined>,
): DeliveryDetailView {
  return {
    ...toDeliveryView(d),
    content_type: d.contentType,
    request,
    attempt_log: attempts.map((a) => toAttemptView(a, checks.get(a.attempt))),
  };
}

/** POST /_sandbox/deliveries/retry-failed: how many failed deliveries were requeued, and which. */
export const retryFailedView = lazySchema(() => z.object({ count: z.number().int(), ids: z.array(z.string()) }));

/** The retry-failed answer's TS type. */
export type RetryFailedView = z.infer<ReturnType<typeof retryFailedView>>;
