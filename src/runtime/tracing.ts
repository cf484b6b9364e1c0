// Spans of what the sandbox does (--otlp): one per API request, its state changes and each webhook
// attempt. The services and the worker talk to this interface only; the OpenTelemetry SDK behind it
// (runtime/otlp-tracer.ts) is imported only when --otlp is given, so a sandbox without the flag
// neither loads nor pays for it: NO_TRACER makes no span, and a webhook's traceparent then gets a
// random span id that nothing exports.
import { newSpanId, type TraceContext } from '../domain/traceparent.js';

/** What a span records: OpenTelemetry attribute values. */
export type SpanAttributes = Record<string, string | number | boolean>;

/** How a span relates to its peers: an HTTP request answered, an HTTP request made, or work inside. */
export type SpanKind = 'server' | 'client' | 'internal';

/** One span being recorded. */
export interface TraceSpan {
  /** Its trace and its own span id: the parent of what it causes, and what a webhook's traceparent names. */
  readonly context: TraceContext;
  /** Adds attributes (a route known only once answered, a receiver's status). */
  set(attributes: SpanAttributes): void;
  /** Names it anew (a server span is named after its route, known once the request is answered). */
  rename(name: string): void;
  /** Ends it, as failed with `error` when given. */
  end(error?: string): void;
}

/** Makes spans; NO_TRACER unless --otlp is given. */
export interface Tracer {
  /** True when spans are exported (--otlp). */
  readonly exporting: boolean;
  /** Starts a span, a child of `parent` (a new trace when null). */
  start(name: string, kind: SpanKind, parent: TraceContext | null, attributes?: SpanAttributes): TraceSpan;
  /** Sends the spans not sent yet and stops (called once, on shutdown). */
  shutdown(): Promise<void>;
}

/** A span nothing records: it only names a new span id (a webhook's traceparent), in the parent's trace. */
function unrecorded(parent: TraceContext | null): TraceSpan {
  const context = parent
    ? { ...parent, spanId: newSpanId() }
    : { traceId: `${newSpanId()}${newSpanId()}`, spanId: newSpanId(), flags: '00', state: null };
  return { context, set() {}, rename() {}, end() {} };
}

/** The tracer of a sandbox without --otlp: no span is recorded or sent. */
export const NO_TRACER: Tracer = {
  exporting: false,
  start: (_name, _kind, parent) => unrecorded(parent),
  shutdown: async () => {},
};
