// The OpenTelemetry side of --otlp: spans made with the OpenTelemetry JS SDK and sent in batches
// over OTLP/HTTP (JSON) to the URL given. Imported dynamically, and only when the flag is set
// (server/start-server.ts), so the SDK is never loaded without it (the bundle keeps it external:
// scripts/bundle-cli.js). The provider is the sandbox's own, not registered globally: a library
// user's own tracing in the same process is left as it is.
import { createTraceState, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { TraceContext } from '../domain/traceparent.js';
import type { Logger } from './logger.js';
import type { SpanAttributes, SpanKind as Kind, TraceSpan, Tracer } from './tracing.js';

/** How often finished spans are sent: soon enough to look at a payment's trace right after it. */
const EXPORT_EVERY_MS = 1000;

const KINDS: Record<Kind, SpanKind> = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL };

/** The exporter, with a failed export said once in the log (the SDK's own diagnostics are off). */
function reporting(inner: SpanExporter, url: string, logger: Logger): SpanExporter {
  let warned = false;
  return {
    export(spans: ReadableSpan[], done) {
      inner.export(spans, (result) => {
        if (result.error && !warned) {
          warned = true;
          logger.error(`--otlp: spans could not be sent to ${url} (${result.error.message}); is a collector listening there?`);
        }
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

/** A span as the sandbox's interface sees it. */
function wrap(span: Span, state: string | null): TraceSpan {
  const ctx = span.spanContext();
  const flags = (ctx.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED ? '01' : '00';
  return {
    context: { traceId: ctx.traceId, spanId: ctx.spanId, flags, state },
    set: (attributes: SpanAttributes) => void span.setAttributes(attributes),
    rename: (name: string) => void span.updateName(name),
    end(error?: string) {
      if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
      span.end();
    },
  };
}

/**
 * A tracer that sends its spans to the OTLP/HTTP traces endpoint `url`, as service paysandbox
 * `version` (given, not imported: this chunk then shares no module with the start-up bundle).
 */
export function otlpTracer(url: string, version: string, logger: Logger): Tracer {
  const exporter = reporting(new OTLPTraceExporter({ url }), url, logger);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'paysandbox', 'service.version': version }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: EXPORT_EVERY_MS })],
  });
  const tracer = provider.getTracer('paysandbox', version);
  return {
    exporting: true,
    start(name: string, kind: Kind, parent: TraceContext | null, attributes: SpanAttributes = {}) {
      // The sandbox's spans are parented by hand: no context manager is registered, so ROOT_CONTEXT is the base.
      const within = parent
        ? trace.setSpanContext(ROOT_CONTEXT, {
            traceId: parent.traceId,
            spanId: parent.spanId,
            traceFlags: parent.flags === '01' ? TraceFlags.SAMPLED : TraceFlags.NONE,
            isRemote: true,
            ...(parent.state ? { traceState: createTraceState(parent.state) } : {}),
          })
        : ROOT_CONTEXT;
      return wrap(tracer.startSpan(name, { kind: KINDS[kind], attributes }, within), parent?.state ?? null);
    },
    shutdown: () => provider.shutdown(),
  };
}
