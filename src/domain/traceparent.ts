// W3C Trace Context (https://www.w3.org/TR/trace-context/): the traceparent header a merchant's
// tracing sends with a request, and the child traceparent each webhook about the payment carries
// (the same trace id, a new span id), so the handler's span joins the checkout's trace.
import { randomBytes } from 'node:crypto';

/** A parsed traceparent: version 00 fields. */
export interface TraceParent {
  traceId: string;
  /** The caller's span: the parent of what the sandbox does for the request. */
  parentId: string;
  flags: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZEROS = /^0+$/;

/** The traceparent header's fields, or undefined when it is not a valid one (the spec says to ignore those). */
export function parseTraceparent(header: string | undefined): TraceParent | undefined {
  const match = header === undefined ? null : TRACEPARENT.exec(header.trim());
  if (!match) return undefined;
  const [, version, traceId, parentId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  // Version ff is invalid; version 00 has nothing after the flags; later versions may add fields.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (ZEROS.test(traceId) || ZEROS.test(parentId)) return undefined;
  return { traceId, parentId, flags };
}

/** A new random span id: 16 lowercase hex digits, never all zeros. */
export function newSpanId(): string {
  for (;;) {
    const id = randomBytes(8).toString('hex');
    if (!ZEROS.test(id)) return id;
  }
}

/** What a webhook's traceparent descends from: the trace, the span it is a child of, its flags and the caller's tracestate. */
export interface TraceContext {
  traceId: string;
  /** The parent span of what comes next: the sandbox's own span when spans are exported, else the caller's. */
  spanId: string;
  flags: string;
  /** The caller's tracestate header, passed on as it came (null when none or not kept). */
  state: string | null;
}

/** The longest tracestate passed on: the spec's 32 members of up to 256 characters fit in far less in practice. */
const MAX_TRACESTATE = 512;

/**
 * The tracestate header to pass on, or null. The spec lets a vendor that cannot parse it drop it;
 * one with a control character or past 512 characters is dropped, so no header is ever forged from it.
 */
export function keptTracestate(header: string | undefined): string | null {
  const value = header?.trim();
  if (!value || value.length > MAX_TRACESTATE || !/^[\x20-\x7e]+$/.test(value)) return null;
  return value;
}

/** The context a request's traceparent (and tracestate) headers start, or undefined for a missing or malformed traceparent. */
export function incomingTrace(traceparent: string | undefined, tracestate: string | undefined): TraceContext | undefined {
  const parent = parseTraceparent(traceparent);
  return parent && { traceId: parent.traceId, spanId: parent.parentId, flags: parent.flags, state: keptTracestate(tracestate) };
}

/** The version-00 traceparent of the span `spanId` (a new one when not given), a child in `parent`'s trace with its flags. */
export function childTraceparent(parent: Pick<TraceContext, 'traceId' | 'flags'>, spanId = newSpanId()): string {
  return `00-${parent.traceId}-${spanId}-${parent.flags}`;
}

/** The traceparent header that names `context`'s span (how a context is stored with an event). */
export function contextTraceparent(context: Pick<TraceContext, 'traceId' | 'spanId' | 'flags'>): string {
  return `00-${context.traceId}-${context.spanId}-${context.flags}`;
}

/** A context stored as a traceparent and tracestate, read back; undefined when none was stored. */
export function storedTrace(traceparent: string | null | undefined, state: string | null | undefined): TraceContext | undefined {
  const parent = parseTraceparent(traceparent ?? undefined);
  return parent && { traceId: parent.traceId, spanId: parent.parentId, flags: parent.flags, state: state ?? null };
}
