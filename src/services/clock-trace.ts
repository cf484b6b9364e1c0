// What a jump of the sandbox clock caused, as it happens: while a `clock advance --report` is
// collecting, every timed job that runs, every charge on a stored token (with the scripted outcome
// it took) and every event published inside one of them, with its deliveries, is recorded as a
// step. Steps are recorded where the work runs (the job runner, the payments service, the event
// publisher), so their order is the causal one: a job, then what it published; a charge, then its
// outcome and its events. A step whose work throws is dropped with it: its transaction rolled back.
import type { EventRecord } from '../store/events-repo.js';

/** An event a step published, and the deliveries it queued. */
export interface TracedEvent {
  id: string;
  type: string;
  resourceId: string;
  at: number;
  deliveryIds: string[];
}

/** One cause: a timed job that ran, or a charge on a stored token. */
export type TraceStep =
  | { kind: 'job'; at: number; job: string; subject: string; events: TracedEvent[] }
  | {
      kind: 'charge';
      at: number;
      paymentId: string;
      token: string;
      initiator: string;
      /** The token's scripted outcome this charge took; null when the card's own outcome applied. */
      scriptedOutcome: string | null;
      events: TracedEvent[];
    };

/** The steps one collection recorded, in causal order. */
export interface Trace {
  steps: TraceStep[];
}

/** Records steps while at least one collection is open; costs nothing otherwise. */
export class ClockTrace {
  private readonly open = new Set<Trace>();
  /** The step whose work is running now (work is synchronous, so one at a time). */
  private current: TraceStep | undefined;

  /** True while a collection is open. */
  get active(): boolean {
    return this.open.size > 0;
  }

  /** Opens a collection: every step from now on is recorded in it until stop(). */
  start(): Trace {
    const trace: Trace = { steps: [] };
    this.open.add(trace);
    return trace;
  }

  /** Closes a collection. */
  stop(trace: Trace): void {
    this.open.delete(trace);
  }

  /** Runs `work` as one step (made by `make`) of every open collection; nested work belongs to the outer step. */
  step<T>(make: () => TraceStep, work: () => T): T {
    if (!this.active || this.current) return work();
    const step = make();
    const traces = [...this.open];
    for (const trace of traces) trace.steps.push(step);
    this.current = step;
    try {
      return work();
    } catch (err) {
      for (const trace of traces) trace.steps.splice(trace.steps.indexOf(step), 1);
      throw err;
    } finally {
      this.current = undefined;
    }
  }

  /** The charge running now took a token's scripted outcome. */
  outcomeTaken(outcome: string): void {
    if (this.current?.kind === 'charge') this.current.scriptedOutcome = outcome;
  }

  /** The payment the charge running now created (its id is known only once it is made). */
  chargeIs(paymentId: string): void {
    if (this.current?.kind === 'charge') this.current.paymentId = paymentId;
  }

  /** An event was published with these deliveries: recorded under the step running now, if any. */
  published(event: EventRecord, deliveryIds: string[]): void {
    this.current?.events.push({ id: event.id, type: event.type, resourceId: event.resourceId, at: event.createdAt, deliveryIds });
  }
}
