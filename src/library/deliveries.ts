// Webhook deliveries as the library hands them to a test: typed, with every attempt and the body
// already parsed, and the one-line summaries a failed wait prints.
import type { Delivery, DeliveryAttempt } from '../store/deliveries-repo.js';
import type { DeliveryStatus } from '../domain/vocabularies.js';

/** One POST of a delivery and what came back. */
export interface SandboxDeliveryAttempt {
  attempt: number;
  at: Date;
  requestHeaders: Record<string, string>;
  /** The HTTP status the receiver answered; null when no answer came (refused, timeout...). */
  responseStatus: number | null;
  responseBody: string | null;
  latencyMs: number | null;
  /** refused | timeout | tls | dns | reset | redirect | http_status | invalid_url | injected, or null on success. */
  errorKind: string | null;
  errorMessage: string | null;
}

/** A webhook delivery: one event going to one URL. */
export interface SandboxDelivery {
  id: string;
  eventId: string;
  /** The event type, e.g. payment.authorized. */
  event: string;
  url: string;
  merchantId: string;
  status: DeliveryStatus;
  contentType: string;
  /** The body as sent: a JSON envelope parsed, or the form fields of an S2S webhook. */
  body: Record<string, unknown>;
  /** The body exactly as sent (what the signature covers). */
  rawBody: string;
  attempts: SandboxDeliveryAttempt[];
  createdAt: Date;
}

function parseBody(contentType: string, raw: string): Record<string, unknown> {
  if (contentType.startsWith('application/json')) {
    try {
      return JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(raw));
}

function attemptOf(a: DeliveryAttempt): SandboxDeliveryAttempt {
  return {
    attempt: a.attempt,
    at: new Date(a.startedAt),
    requestHeaders: a.requestHeaders,
    responseStatus: a.responseStatus,
    responseBody: a.responseBody,
    latencyMs: a.latencyMs,
    errorKind: a.errorKind,
    errorMessage: a.errorMessage,
  };
}

/** The library's view of a stored delivery. */
export function toSandboxDelivery(d: Delivery, attempts: DeliveryAttempt[]): SandboxDelivery {
  return {
    id: d.id,
    eventId: d.eventId,
    event: d.eventType,
    url: d.url,
    merchantId: d.merchantId,
    status: d.status,
    contentType: d.contentType,
    body: parseBody(d.contentType, d.body),
    rawBody: d.body,
    attempts: attempts.map(attemptOf),
    createdAt: new Date(d.createdAt),
  };
}

/** "whd_x payment.authorized -> http://... failed after 2 attempts (last answer 500)" */
export function describeDelivery(d: SandboxDelivery): string {
  const last = d.attempts[d.attempts.length - 1];
  const tries = `${d.attempts.length} attempt${d.attempts.length === 1 ? '' : 's'}`;
  const answer = !last
    ? 'not tried yet'
    : last.responseStatus !== null
      ? `last answer ${last.responseStatus}`
      : `last error ${last.errorKind}: ${last.errorMessage}`;
  return `${d.id} ${d.event} -> ${d.url} ${d.status} after ${tries} (${answer})`;
}

/** The attempt log of a delivery, one line per attempt ("    #1 2026-...Z answered 500" / "... refused: ..."). */
export function describeAttempts(d: SandboxDelivery): string[] {
  return d.attempts.map((a) => {
    const answer =
      a.responseStatus !== null
        ? `answered ${a.responseStatus}${a.responseBody ? `: ${a.responseBody.slice(0, 80)}` : ''}`
        : `${a.errorKind}: ${a.errorMessage}`;
    return `    #${a.attempt} ${a.at.toISOString()} ${answer}`;
  });
}
