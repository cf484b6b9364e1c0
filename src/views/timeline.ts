// A payment's timeline (services/journal/timeline.ts builds it): the model every reader shares (the
// control API's JSON, `sandbox trace`, the dashboard's sequence diagram), and its JSON view.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { SignatureDiagnosis } from '../signatures/findings.js';
import type { DeliveryAttempt } from '../store/deliveries-repo.js';
import type { JournalRow } from '../store/journal-repo.js';
import type { StoryChallenge, StoryChargeback, StoryDelivery, StoryRefund, StorySession, StorySettlement } from '../store/story-repo.js';
import { journalEntryView, toJournalEntryView } from './journal.js';
import { signatureDiagnosisView, toSignatureDiagnosisView } from './signature-diagnosis.js';
import { iso, isoOrNull, isoTime } from './time.js';

/** The lanes of the sequence diagram. */
export type Lane = 'browser' | 'merchant' | 'sandbox' | 'handler';

/** What made a state change happen. */
export interface Cause {
  kind: 'test_card' | 'token' | 'header' | 'scenario' | 'fault' | 'page' | 'api' | 'control_api' | 'job' | 'clock' | 'unknown';
  /** In words, e.g. "test card 424242…4242 (frictionless: approved at once, no authurl)". */
  text: string;
  /** The request that made it, when one did. */
  requestId: string | null;
}

/** A request that touched the payment. */
export interface RequestItem {
  kind: 'request';
  row: JournalRow;
}

/** A change of the payment's state (or of one of its objects), from its event. */
export interface StateItem {
  kind: 'state';
  /** The object that changed: the payment, a refund, a chargeback, a session, a settlement. */
  objectId: string;
  /** Its status after the change, where the event says it. */
  status: string | null;
  event: { id: string; type: string } | null;
  cause: Cause;
}

/** One webhook attempt and the handler's answer. */
export interface AttemptItem {
  kind: 'attempt';
  delivery: StoryDelivery & { eventType: string };
  attempt: DeliveryAttempt;
  /** The signature diagnosis of what was sent, when the handler refused it with 400, 401 or 403. */
  refusal: SignatureDiagnosis | undefined;
}

/** An entry placed in sandbox time, between two lanes (before its wall time is known). */
export type Draft = (RequestItem | StateItem | AttemptItem) & { at: number; from: Lane; to: Lane; title: string };

/** One entry of the timeline: when (sandbox and wall time), between which lanes, what. */
export type TimelineItem = Draft & {
  wallAt: number;
  /** False when wall time is read from the sandbox time and the clock's offset then (everything but requests). */
  wallExact: boolean;
};

/** The payment a timeline is about. */
export interface TimelineSubject {
  id: string;
  family: 's2s' | 'v1';
  merchantId: string;
  status: string;
  amount: number;
  currency: string;
  createdAt: number;
  /** The W3C trace a request's traceparent started for it, if any. */
  traceId: string | null;
}

/** A payment's timeline. */
export interface Timeline {
  payment: TimelineSubject;
  challenges: StoryChallenge[];
  sessions: StorySession[];
  refunds: StoryRefund[];
  chargebacks: StoryChargeback[];
  settlements: StorySettlement[];
  items: TimelineItem[];
  /** True when the journal no longer holds every request of the payment (--journal-size, --journal-age). */
  journalComplete: boolean;
}

/** How much of a handler's answer an attempt shows (the attempt log keeps 16 KiB). */
const ANSWER_EXCERPT_CHARS = 1000;

const lane = lazySchema(() => z.enum(['browser', 'merchant', 'sandbox', 'handler']));
const placed = () => ({
  at: isoTime.describe('sandbox time'),
  wall_at: isoTime.describe('wall-clock time'),
  wall_exact: z
    .boolean()
    .describe("true for requests (recorded as they came in); otherwise read from sandbox time and the clock's offset then"),
  from: lane().describe("the lane the arrow starts from: the customer's browser, the merchant's server, the sandbox, the webhook handler"),
  to: lane(),
  title: z.string().describe('one line saying what happened'),
});

const causeView = lazySchema(() =>
  z.object({
    kind: z.enum(['test_card', 'token', 'header', 'scenario', 'fault', 'page', 'api', 'control_api', 'job', 'clock', 'unknown']),
    text: z.string(),
    request_id: z.string().nullable().describe('the request that made the change, when one did'),
  }),
);

/** One entry of a timeline. */
export const timelineItemView = lazySchema(() =>
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('request'), ...placed(), request: journalEntryView() }),
    z.object({
      kind: z.literal('state'),
      ...placed(),
      object_id: z.string().describe('what changed: the payment, or its refund, chargeback, checkout session or settlement'),
      status: z.string().nullable().describe('its status after the change'),
      event: z
        .object({ id: z.string(), type: z.string() })
        .nullable()
        .describe('the event that announced it (null: none did, e.g. an S2S payment left Pending)'),
      cause: causeView(),
    }),
    z.object({
      kind: z.literal('attempt'),
      ...placed(),
      delivery: z.object({
        id: z.string(),
        event_id: z.string(),
        event: z.string(),
        url: z.string(),
        manual: z.boolean().describe('a replay or a trigger sent by hand'),
        status: z.string(),
      }),
      attempt: z.object({
        number: z.number().int(),
        response_status: z.number().int().nullable(),
        latency_ms: z.number().nullable(),
        error_kind: z.string().nullable(),
        error: z.string().nullable(),
        fault: z.string().nullable(),
        traceparent: z.string().nullable().describe("the traceparent header it carried: a child span of the payment's trace"),
        response_excerpt: z.string().nullable(),
      }),
      signature_diagnosis: signatureDiagnosisView()
        .nullable()
        .describe('why the handler may have refused it (it answered 400, 401 or 403)'),
    }),
  ]),
);

/** A timeline entry's TS type. */
export type TimelineItemView = z.infer<ReturnType<typeof timelineItemView>>;

/** A payment's timeline. */
export const timelineView = lazySchema(() =>
  z
    .object({
      object: z.literal('timeline'),
      payment: z.object({
        id: z.string().describe('the S2S transID or /v1/ pay_... id'),
        family: z.enum(['s2s', 'v1']),
        merchant_id: z.string(),
        status: z.string(),
        amount: z.number().int().describe('minor units'),
        currency: z.string(),
        created_at: isoTime,
        trace_id: z
          .string()
          .nullable()
          .describe('the W3C trace id of the traceparent a request about it carried; its webhooks carry child spans of it'),
      }),
      challenges: z.array(z.object({ kind: z.string(), state: z.string(), created_at: isoTime, completed_at: isoTime.nullable() })),
      checkout_sessions: z.array(z.object({ id: z.string(), status: z.string(), payment_id: z.string().nullable(), created_at: isoTime })),
      refunds: z.array(
        z.object({
          id: z.string(),
          amount: z.number().int(),
          currency: z.string(),
          status: z.string(),
          failure_reason: z.string().nullable(),
          created_at: isoTime,
        }),
      ),
      chargebacks: z.array(
        z.object({
          id: z.string(),
          amount: z.number().int(),
          currency: z.string(),
          reason: z.string(),
          status: z.string(),
          created_at: isoTime,
        }),
      ),
      settlements: z.array(
        z.object({
          id: z.string(),
          how: z.enum(['item', 'refund', 'chargeback']).describe('item: it paid the payment out; refund, chargeback: it took one back'),
          amount: z.number().int(),
          currency: z.string(),
          status: z.string(),
          created_at: isoTime,
          paid_at: isoTime.nullable(),
        }),
      ),
      journal_complete: z
        .boolean()
        .describe('false when the request journal no longer holds every request about it (--journal-size, --journal-age)'),
      items: z.array(timelineItemView()).describe('oldest first, in sandbox time'),
    })
    .meta({ id: 'PaymentTimeline' }),
);

/** The timeline view's TS type. */
export type TimelineView = z.infer<ReturnType<typeof timelineView>>;

/** One entry as the API answers it. */
function toItemView(item: TimelineItem): TimelineItemView {
  const placedView = {
    at: iso(item.at),
    wall_at: iso(item.wallAt),
    wall_exact: item.wallExact,
    from: item.from,
    to: item.to,
    title: item.title,
  };
  if (item.kind === 'request') return { kind: 'request', ...placedView, request: toJournalEntryView(item.row) };
  if (item.kind === 'state')
    return {
      kind: 'state',
      ...placedView,
      object_id: item.objectId,
      status: item.status,
      event: item.event,
      cause: { kind: item.cause.kind, text: item.cause.text, request_id: item.cause.requestId },
    };
  const { delivery: d, attempt: a } = item;
  return {
    kind: 'attempt',
    ...placedView,
    delivery: { id: d.id, event_id: d.eventId, event: d.eventType, url: d.url, manual: d.manual, status: d.status },
    attempt: {
      number: a.attempt,
      response_status: a.responseStatus,
      latency_ms: a.latencyMs,
      error_kind: a.errorKind,
      error: a.errorMessage,
      fault: a.fault,
      traceparent: a.requestHeaders.traceparent ?? null,
      response_excerpt: a.responseBody === null ? null : a.responseBody.slice(0, ANSWER_EXCERPT_CHARS),
    },
    signature_diagnosis: item.refusal ? toSignatureDiagnosisView(item.refusal) : null,
  };
}

/** A timeline as the API answers it. */
export function toTimelineView(t: Timeline): TimelineView {
  const p = t.payment;
  return {
    object: 'timeline',
    payment: {
      id: p.id,
      family: p.family,
      merchant_id: p.merchantId,
      status: p.status,
      amount: p.amount,
      currency: p.currency,
      created_at: iso(p.createdAt),
      trace_id: p.traceId,
    },
    challenges: t.challenges.map((c) => ({
      kind: c.kind,
      state: c.state,
      created_at: iso(c.createdAt),
      completed_at: isoOrNull(c.completedAt),
    })),
    checkout_sessions: t.sessions.map((s) => ({
      id: s.id,
      status: s.status,
      payment_id: s.paymentId ?? s.lastPaymentId,
      created_at: iso(s.createdAt),
    })),
    refunds: t.refunds.map((r) => ({
      id: r.id,
      amount: r.amount,
      currency: r.currency,
      status: r.status,
      failure_reason: r.failureReason,
      created_at: iso(r.createdAt),
    })),
    chargebacks: t.chargebacks.map((c) => ({
      id: c.id,
      amount: c.amount,
      currency: c.currency,
      reason: c.reason,
      status: c.status,
      created_at: iso(c.createdAt),
    })),
    settlements: t.settlements.map((s) => ({
      id: s.id,
      how: s.how,
      amount: s.amount,
      currency: s.currency,
      status: s.status,
      created_at: iso(s.createdAt),
      paid_at: isoOrNull(s.paidAt),
    })),
    journal_complete: t.journalComplete,
    items: t.items.map(toItemView),
  };
}
