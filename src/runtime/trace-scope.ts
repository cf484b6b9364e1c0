// Which trace the code running now works in: the tracing middleware (http/middleware/tracing.ts)
// runs each request that came with a valid traceparent, or that has a span of its own (--otlp),
// inside a scope, and the outbox reads it when it records an event: the event, its span and its
// webhooks join that trace. Like the request scope (request-scope.ts), a scope closes once its
// request is answered, so what a timer the request armed runs later is not in it.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TraceContext } from '../domain/traceparent.js';

interface Scope {
  readonly context: TraceContext;
  /** The ids of the objects whose events the request recorded (the request span's payment id). */
  readonly objects: string[];
  open: boolean;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Runs `fn` (a request's handling) in the trace `context`; returns it and the objects the request recorded events about. */
export async function inTraceScope<T>(context: TraceContext, fn: () => Promise<T>): Promise<{ result: T; objects: readonly string[] }> {
  const scope: Scope = { context, objects: [], open: true };
  try {
    return { result: await scopes.run(scope, fn), objects: scope.objects };
  } finally {
    scope.open = false;
  }
}

/** The trace of the request being answered, if it has one; notes `objectId` as an object the request recorded an event about. */
export function currentTrace(objectId?: string): TraceContext | undefined {
  const scope = scopes.getStore();
  if (!scope?.open) return undefined;
  if (objectId !== undefined && !scope.objects.includes(objectId)) scope.objects.push(objectId);
  return scope.context;
}
