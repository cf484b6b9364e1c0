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

/** A traceparent header of the trace `traceId` whose span is `spanId` (a new one when not given), sampled. */
export function traceparentHeader(traceId: string, spanId = newSpanId()): string {
  return `00-${traceId}-${spanId}-01`;
}
