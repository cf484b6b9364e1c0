// The sandbox clock and the health answer of the control API.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { formatDuration } from '../domain/duration.js';
import { iso, isoTime } from './time.js';

/** GET /_sandbox/clock: sandbox time and how far it is ahead of the wall clock. */
export const clockView = lazySchema(() =>
  z.object({
    now: isoTime.describe('sandbox time'),
    offset_ms: z.number().int().describe('how far sandbox time is ahead of the wall clock, in ms'),
    offset: z.string().describe('the same as a duration, e.g. "1h30m"'),
  }),
);

/** The clock view's TS type. */
export type ClockView = z.infer<ReturnType<typeof clockView>>;

/** A delivery a jump caused, and the handler's answer to its first attempt. */
const reportDelivery = lazySchema(() =>
  z.object({
    id: z.string().describe('whd_...'),
    url: z.string(),
    first_attempt: z
      .object({
        ok: z.boolean().describe('the handler answered 2xx'),
        status: z.number().int().nullable().describe('the HTTP status it answered; null when none came (refused, timeout...)'),
        error: z.string().nullable().describe('why no 2xx came, e.g. "timeout: no answer within 5 s"'),
        answer: z.string().nullable().describe('the first 200 characters of the body it answered'),
        latency_ms: z.number().int().nullable(),
      })
      .nullable()
      .describe('null: no attempt within the wait'),
  }),
);

/** One thing a jump caused: a timed job that ran, or a charge on a stored token; each with the events it published. */
const reportStep = lazySchema(() =>
  z.object({
    kind: z.enum(['job', 'charge']),
    at: isoTime.describe('sandbox time it happened (a job: when it fell due)'),
    job: z.string().optional().describe('job: its kind, e.g. token.expiring, payment.lapse, payment.return'),
    subject: z.string().optional().describe('job: the object it worked on'),
    payment_id: z.string().optional().describe('charge: the payment'),
    token: z.string().optional().describe('charge: the token charged'),
    initiator: z.string().optional().describe('charge: customer or merchant'),
    scripted_outcome: z.string().nullable().optional().describe("charge: the token's scripted outcome it took; null for the card's own"),
    events: z.array(
      z.object({
        id: z.string(),
        type: z.string(),
        resource_id: z.string(),
        at: isoTime,
        deliveries: z.array(reportDelivery()),
      }),
    ),
  }),
);

/** POST /_sandbox/clock/advance: the clock after the move, how many timed jobs ran, and what the jump caused. */
export const clockAdvanceView = lazySchema(() =>
  clockView()
    .extend({
      jobs_run: z.number().int().describe('timed jobs that came due and ran'),
      from: isoTime.describe('sandbox time before the jump'),
      report: z.object({
        steps: z.array(reportStep()).describe('in causal order: each job or charge, the events it published, their deliveries'),
        scripted_outcomes: z.number().int().describe("charges that took a token's scripted outcome"),
        events: z.number().int(),
        deliveries: z.number().int(),
        failed: z.number().int().describe('deliveries whose first attempt got no 2xx'),
        unanswered: z.number().int().describe('deliveries with no attempt within the wait'),
        waited_ms: z.number().int().describe('real time spent waiting for first attempts (at most wait)'),
      }),
    })
    .meta({ id: 'ClockAdvance' }),
);

/** The clock advance answer's TS type. */
export type ClockAdvanceView = z.infer<ReturnType<typeof clockAdvanceView>>;

/** What a jump did, as the clock advances service reports it (services/clock-advances.ts). */
export interface AdvanceFacts {
  from: number;
  now: number;
  offsetMs: number;
  jobsRun: number;
  steps: ReadonlyArray<
    {
      kind: 'job' | 'charge';
      at: number;
      events: ReadonlyArray<{ id: string; type: string; resourceId: string; at: number; deliveryIds: readonly string[] }>;
    } & Record<string, unknown>
  >;
  firstAttempts: ReadonlyMap<string, FirstAttemptFacts | undefined>;
  /** The URL of each delivery. */
  urlOf: (deliveryId: string) => string;
  waitedMs: number;
}

/** A first attempt as the attempt log holds it. */
export interface FirstAttemptFacts {
  responseStatus: number | null;
  responseBody: string | null;
  latencyMs: number | null;
  errorKind: string | null;
  errorMessage: string | null;
}

/** The advance answer: the clock, and the report of what the jump caused. */
export function toClockAdvanceView(facts: AdvanceFacts): ClockAdvanceView {
  let failed = 0;
  let unanswered = 0;
  let deliveries = 0;
  let events = 0;
  const steps = facts.steps.map((step) => {
    const own =
      step.kind === 'job'
        ? { job: step.job as string, subject: step.subject as string }
        : {
            payment_id: step.paymentId as string,
            token: step.token as string,
            initiator: step.initiator as string,
            scripted_outcome: step.scriptedOutcome as string | null,
          };
    return {
      kind: step.kind,
      at: iso(step.at),
      ...own,
      events: step.events.map((event) => {
        events++;
        return {
          id: event.id,
          type: event.type,
          resource_id: event.resourceId,
          at: iso(event.at),
          deliveries: event.deliveryIds.map((id) => {
            deliveries++;
            const first = facts.firstAttempts.get(id);
            const ok = first ? first.responseStatus !== null && first.responseStatus >= 200 && first.responseStatus < 300 : false;
            if (!first) unanswered++;
            else if (!ok) failed++;
            return {
              id,
              url: facts.urlOf(id),
              first_attempt: first
                ? {
                    ok,
                    status: first.responseStatus,
                    error: ok ? null : first.errorKind ? `${first.errorKind}: ${first.errorMessage ?? ''}`.trim() : null,
                    answer: first.responseBody === null ? null : first.responseBody.slice(0, 200),
                    latency_ms: first.latencyMs === null ? null : Math.round(first.latencyMs),
                  }
                : null,
            };
          }),
        };
      }),
    };
  });
  return {
    ...toClockView(facts.now, facts.offsetMs),
    jobs_run: facts.jobsRun,
    from: iso(facts.from),
    report: {
      steps,
      scripted_outcomes: facts.steps.filter((step) => step.kind === 'charge' && step.scriptedOutcome !== null).length,
      events,
      deliveries,
      failed,
      unanswered,
      waited_ms: facts.waitedMs,
    },
  };
}

/** GET /_sandbox/health. */
export const healthView = lazySchema(() =>
  z.object({ status: z.literal('ok'), version: z.string(), time: isoTime.describe('sandbox time') }),
);

/** The health answer's TS type. */
export type HealthView = z.infer<ReturnType<typeof healthView>>;

/** The clock at `now` (sandbox ms), `offsetMs` ahead of the wall clock. */
export function toClockView(now: number, offsetMs: number): ClockView {
  return { now: iso(now), offset_ms: offsetMs, offset: formatDuration(offsetMs) };
}

/** The health answer at sandbox time `now`. */
export function toHealthView(version: string, now: number): HealthView {
  return { status: 'ok', version, time: iso(now) };
}
