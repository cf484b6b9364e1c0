// One payment's whole story (GET /_sandbox/payments/{id}/timeline, `sandbox trace`, the dashboard's
// payment page): the requests that touched it, from the request journal; each state change, read
// from its events, with what caused it; every webhook attempt with the handler's answer (and the
// signature diagnosis when it refused one); its refunds, chargebacks and settlement. One ordered
// list, in sandbox time and wall time.
//
// Causes are read from what was recorded, not guessed in the request path: a change that happened
// while a request touching the payment was being answered was that request's doing (its test card,
// X-Sandbox-Outcome header or scenario entry for a create, its page for a customer's choice, its
// route for the control API, its fault); one made by a timed job carries the job's due time (the
// clock pins it, runtime/clock.ts asOf), and a job that ran inside a clock advance was the jump's.
import { touchedIds } from '../../domain/touched-ids.js';
import { TEST_CARDS } from '../../domain/outcomes.js';
import { statusText } from '../../domain/order-status.js';
import { parseTraceparent } from '../../domain/traceparent.js';
import { SandboxError } from '../../errors.js';
import type { JournalRow } from '../../store/journal-repo.js';
import type { StoryEvent, StoryJob } from '../../store/story-repo.js';
import { iso } from '../../views/time.js';
import type { Cause, Draft, Lane, StateItem, Timeline, TimelineItem, TimelineSubject } from '../../views/timeline.js';
import type { ServiceDeps } from '../deps.js';
import type { Signatures } from '../signatures.js';
import type { Journal } from './journal.js';

/** Requests of one payment a timeline lists at most. */
const MAX_REQUESTS = 1000;
/** A job's change is stamped with its due time, or a little after when it ran on time. */
const JOB_LATENESS_MS = 5000;

/** Builds timelines. */
export class Timelines {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly journal: Journal,
    private readonly signatures: Signatures,
  ) {}

  /** The payment (transID or pay_ id) `id` names: itself, or the payment of a session, refund, chargeback or page token. */
  paymentIdOf(id: string): string | undefined {
    const { store } = this.deps;
    if (store.payments.get(id) || store.transactions.get(id)) return id;
    const owner = store.story.ownerOf(id);
    return owner !== undefined && (store.payments.get(owner) || store.transactions.get(owner)) ? owner : undefined;
  }

  /** The ids a payment's requests touch: its own, its page and status tokens, sessions, refunds and chargebacks. */
  relatedIds(id: string): string[] {
    const paymentId = this.resolve(id);
    const { story, transactions } = this.deps.store;
    const token = transactions.get(paymentId)?.statusToken;
    return [
      paymentId,
      ...(token ? [token] : []),
      ...story.challenges(paymentId).map((c) => c.token),
      ...story.sessions(paymentId).flatMap((s) => [s.id, s.token]),
      ...story.refunds(paymentId).map((r) => r.id),
      ...story.chargebacks(paymentId).map((c) => c.id),
    ];
  }

  /** The timeline of the payment `id` names; 404 when it names none. */
  of(id: string): Timeline {
    const paymentId = this.resolve(id);
    const { store } = this.deps;
    const { story } = store;
    const payment = this.subject(paymentId);
    const challenges = story.challenges(paymentId);
    const sessions = story.sessions(paymentId);
    const refunds = story.refunds(paymentId);
    const chargebacks = story.chargebacks(paymentId);
    const settlements = story.settlements(paymentId);
    const related = this.relatedIds(paymentId);
    const rows = this.journal.touching(related, MAX_REQUESTS);
    const objects = [paymentId, ...sessions.map((s) => s.id), ...refunds.map((r) => r.id), ...chargebacks.map((c) => c.id)];
    const events = story.events([...objects, ...new Set(settlements.map((s) => s.id))]);
    const jobs = story.jobs(related);
    const clockJumps = this.journal.list({ path: '/_sandbox/clock/advance', limit: 100 }).data.filter((r) => r.status === 200);
    const items: Draft[] = [
      ...rows.map((row) => this.requestItem(row)),
      ...this.stateItems(payment, events, rows, jobs, clockJumps),
      ...this.attemptItems(events),
    ];
    // Same sandbox time (many requests share a millisecond): requests in the order they came, each
    // change right after the request that caused it, the rest after them.
    const seqs = new Map(rows.map((r) => [r.id, r.seq]));
    const rank = (item: Draft) =>
      item.kind === 'request'
        ? item.row.seq
        : item.kind === 'state' && item.cause.requestId !== null && seqs.has(item.cause.requestId)
          ? (seqs.get(item.cause.requestId) ?? 0) + 0.5
          : Number.MAX_SAFE_INTEGER + (item.kind === 'attempt' ? 1 : 0);
    items.sort((a, b) => a.at - b.at || rank(a) - rank(b));
    const traceId = payment.traceId ?? rows.map((r) => parseTraceparent(r.traceparent ?? undefined)?.traceId).find(Boolean) ?? null;
    return {
      payment: { ...payment, traceId },
      challenges,
      sessions,
      refunds,
      chargebacks,
      settlements,
      items: this.withWallTimes(items),
      journalComplete:
        rows.length > 0 && rows.length < MAX_REQUESTS && (rows[0]?.startedAt ?? Number.POSITIVE_INFINITY) <= payment.createdAt + 1000,
    };
  }

  private resolve(id: string): string {
    const paymentId = this.paymentIdOf(id);
    if (paymentId === undefined)
      throw new SandboxError(
        'resource_missing',
        `no payment ${id}: give an S2S transID or a /v1/ payment id (pay_...), or the id of its checkout session, refund or chargeback`,
        'id',
      );
    return paymentId;
  }

  private subject(id: string): TimelineSubject {
    const { store } = this.deps;
    const trace = store.journal.trace(id);
    const v1 = store.payments.get(id);
    if (v1)
      return {
        id,
        family: 'v1',
        merchantId: v1.merchantId,
        status: v1.status,
        amount: v1.amount,
        currency: v1.currency,
        createdAt: v1.createdAt,
        traceId: trace?.traceId ?? null,
      };
    const t = store.transactions.get(id);
    if (!t) throw new SandboxError('resource_missing', `no payment ${id}: give an S2S transID or a /v1/ payment id (pay_...)`, 'id');
    return {
      id,
      family: 's2s',
      merchantId: t.merchantId,
      status: `${t.orderStatus} ${statusText(t.orderStatus)}`,
      amount: t.amount,
      currency: t.currency,
      createdAt: t.createdAt,
      traceId: trace?.traceId ?? null,
    };
  }

  private requestItem(row: JournalRow): Draft {
    const from: Lane = row.surface === 'page' ? 'browser' : 'merchant';
    const what = row.surface === 'control' ? 'control API: ' : row.surface === 'page' ? (row.method === 'GET' ? 'opens ' : 'submits ') : '';
    return { kind: 'request', row, at: row.startedAt, from, to: 'sandbox', title: `${what}${row.method} ${row.path} → ${row.status}` };
  }

  /** Each event as a state change with its cause; a create that sent no event (an S2S payment left Pending) from its answer. */
  private stateItems(
    payment: TimelineSubject,
    events: StoryEvent[],
    rows: JournalRow[],
    jobs: StoryJob[],
    clockJumps: JournalRow[],
  ): Draft[] {
    const items: Draft[] = events.map((event) => {
      const status = statusOf(event);
      const state: StateItem = {
        kind: 'state',
        objectId: event.resourceId,
        status,
        event: { id: event.id, type: event.type },
        cause: this.causeOfEvent(event, rows, jobs, clockJumps),
      };
      const about = event.resourceId === payment.id ? '' : ` (${event.resourceId})`;
      return {
        ...state,
        at: event.createdAt,
        from: 'sandbox',
        to: 'sandbox',
        title: `${event.type}${status ? ` → ${status}` : ''}${about}`,
      };
    });
    const create = rows.find(
      (r) => r.method === 'POST' && r.status < 300 && r.responseBody?.includes(payment.id) && r.surface !== 'control',
    );
    const first = events.find((e) => e.resourceId === payment.id);
    if (create && !(first && first.createdAt <= create.endedAt)) {
      const status = createdStatus(create.responseBody ?? '', payment.family);
      items.push({
        kind: 'state',
        objectId: payment.id,
        status,
        event: null,
        cause: this.causeOf(create, create.endedAt),
        at: create.endedAt,
        from: 'sandbox',
        to: 'sandbox',
        title: `created${status ? ` → ${status}` : ''}`,
      });
    }
    return items;
  }

  /** What made the change an event announces: the request that made it (recorded with the event), else read from its time. */
  private causeOfEvent(event: StoryEvent, rows: JournalRow[], jobs: StoryJob[], clockJumps: JournalRow[]): Cause {
    // null: a timed job's; SOME_REQUEST (''): a request's the outbox could not name (request-scope.ts), read from the times.
    const by = event.requestId ? (rows.find((r) => r.id === event.requestId) ?? this.deps.store.journal.get(event.requestId)) : undefined;
    if (by && !by.path.startsWith('/_sandbox/clock/')) return this.causeOf(by, event.createdAt);
    if (by) return this.causeAt(event.createdAt, [], jobs, [by, ...clockJumps]);
    const named = new Set([event.resourceId, ...touchedIds([JSON.stringify(event.data)])]);
    return this.causeAt(event.createdAt, event.requestId === null ? [] : rows, jobs, clockJumps, named);
  }

  /** What made a change at sandbox time `at`: the request touching the payment being answered then, else a job (or the clock jump that ran it). */
  private causeAt(at: number, rows: JournalRow[], jobs: StoryJob[], clockJumps: JournalRow[], named?: ReadonlySet<string>): Cause {
    const during = rows.filter((r) => r.startedAt <= at && at <= r.endedAt && !(r.surface === 'control' && r.method === 'GET'));
    // Of the requests answered then (many share a millisecond), one that writes rather than reads,
    // and of those the one that named most of the ids the event names (a refund's create, not the
    // chargeback of the same payment in the same millisecond); the latest of equals.
    const writes = during.filter((r) => r.method !== 'GET' && r.method !== 'HEAD');
    let request: JournalRow | undefined;
    let best = -1;
    for (const r of writes.length > 0 ? writes : during) {
      const shared = named === undefined ? 0 : r.ids.filter((id) => named.has(id)).length;
      if (shared >= best) [request, best] = [r, shared];
    }
    if (request && !request.path.startsWith('/_sandbox/clock/')) return this.causeOf(request, at);
    const job = jobs.filter((j) => j.done && j.dueAt <= at && at - j.dueAt <= JOB_LATENESS_MS).pop();
    const jump = clockJumps.find((r) => r.startedAt <= at && at <= r.endedAt);
    if (jump)
      return {
        kind: 'clock',
        text: `the clock jump of ${jump.id} (${jump.method} ${jump.path} ${jump.requestBody ?? ''}) ran ${job ? `the ${job.kind} job due then` : 'what fell due'}`,
        requestId: jump.id,
      };
    if (job) return { kind: 'job', text: `the ${job.kind} job (due ${iso(job.dueAt)})`, requestId: null };
    return { kind: 'unknown', text: 'no request or job the sandbox still holds (the journal may have dropped it)', requestId: null };
  }

  /** The cause a request is of the changes made while it was answered. */
  private causeOf(r: JournalRow, _at: number): Cause {
    const by = { requestId: r.id };
    if (r.fault) return { kind: 'fault', text: `${r.method} ${r.path} with the API fault ${r.fault}`, ...by };
    if (r.script?.startsWith('scenario')) return { kind: 'scenario', text: `${r.script} (${r.method} ${r.path})`, ...by };
    if (r.script) return { kind: 'header', text: `${r.script} on ${r.method} ${r.path}`, ...by };
    if (r.surface === 'control')
      return { kind: 'control_api', text: `the control API: ${r.method} ${r.path} ${r.requestBody ?? ''}`.trim(), ...by };
    if (r.surface === 'page') {
      const page = r.path.startsWith('/authenticate/') ? 'the 3-D Secure page' : 'the checkout page';
      return {
        kind: 'page',
        text: `the customer on ${page}: ${r.method} ${r.path.replace(/\/[A-Za-z0-9_-]{43}/, '/…')} ${formChoice(r.requestBody)}`.trim(),
        ...by,
      };
    }
    const card = cardIn(r.requestBody);
    if (card) return { kind: 'test_card', text: `${card} (${r.method} ${r.path})`, ...by };
    const token = /"token"\s*:\s*"(tok_[A-Za-z0-9_]+)"/.exec(r.requestBody ?? '')?.[1];
    if (token) return { kind: 'token', text: `the card token ${token} (${r.method} ${r.path})`, ...by };
    return { kind: 'api', text: `${r.method} ${r.path}`, ...by };
  }

  /** Every attempt of every delivery of the events, with the handler's answer and a refusal's diagnosis. */
  private attemptItems(events: StoryEvent[]): Draft[] {
    const { store } = this.deps;
    const types = new Map(events.map((e) => [e.id, e.type]));
    return store.story.deliveries([...types.keys()]).flatMap((d) =>
      store.deliveries.attempts(d.id).map((attempt) => {
        const delivery = { ...d, eventType: types.get(d.eventId) ?? '' };
        const answer = attempt.responseStatus !== null ? `HTTP ${attempt.responseStatus}` : `no answer (${attempt.errorKind ?? 'error'})`;
        return {
          kind: 'attempt' as const,
          delivery,
          attempt,
          refusal: this.signatures.refusal(attempt),
          at: attempt.startedAt,
          from: 'sandbox' as const,
          to: 'handler' as const,
          title: `${delivery.eventType} attempt ${attempt.attempt}${d.manual ? ' (replay)' : ''} → ${answer}`,
        };
      }),
    );
  }

  /** Wall times: a request's as recorded; anything else's from its sandbox time and the clock's offset at the nearest request before it (else after, else now). */
  private withWallTimes(items: Draft[]): TimelineItem[] {
    const offsets = items.flatMap((i) => (i.kind === 'request' ? [{ at: i.at, offset: i.row.startedAt - i.row.wallAt }] : []));
    const now = this.deps.clock.offset();
    return items.map((item): TimelineItem => {
      if (item.kind === 'request') return { ...item, wallAt: item.row.wallAt, wallExact: true };
      const before = offsets.filter((o) => o.at <= item.at).pop() ?? offsets.find((o) => o.at > item.at);
      return { ...item, wallAt: item.at - (before?.offset ?? now), wallExact: false };
    });
  }
}

/** The status an event says its object is in: a /v1/ status, an S2S order_status with its text, or the event's last word. */
function statusOf(event: StoryEvent): string | null {
  const data = event.data;
  if (data.order_status !== undefined && /^\d+$/.test(String(data.order_status))) {
    const code = Number(data.order_status);
    return `${code} ${statusText(code)}`;
  }
  if (typeof data.status === 'string') return data.status;
  return null;
}

/** The status a create's answer gives: /v1/ status, or S2S order_status with its text. */
function createdStatus(answer: string, family: 's2s' | 'v1'): string | null {
  try {
    const body = JSON.parse(answer) as Record<string, unknown>;
    if (family === 's2s' && /^\d+$/.test(String(body.order_status))) return `${body.order_status} ${statusText(Number(body.order_status))}`;
    return typeof body.status === 'string' ? body.status : null;
  } catch {
    return null;
  }
}

/** The test card a (masked) request body names, in words; undefined when it names none of the table. */
function cardIn(body: string | null): string | undefined {
  if (!body) return undefined;
  const masked = /(\d{6})\*+(\d{4})/.exec(body);
  if (!masked) return undefined;
  const [, first = '', last = ''] = masked;
  const card = TEST_CARDS.find((c) => c.number.startsWith(first) && c.number.endsWith(last));
  return card
    ? `test card ${card.number.slice(0, 6)}…${card.number.slice(-4)} (${card.description})`
    : `card ${masked[1]}…${masked[2]} (any other card: a 3-D Secure challenge)`;
}

/** The fields a page's form sent (the CSRF token left out), for the cause of a customer's choice. */
function formChoice(body: string | null): string {
  if (!body) return '';
  const fields = [...new URLSearchParams(body)].filter(([name]) => name !== 'csrf').map(([name, value]) => `${name}=${value}`);
  return fields.length > 0 ? `(${fields.join(', ')})` : '';
}
