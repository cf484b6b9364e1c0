// How a request and its answer become the journal's row: what is kept of them, masked (one
// function, domain/journal-mask.ts), cut to BODY_LIMIT_CHARS, and the ids they name. Pure and
// small: the front thread (server/front/front-thread.ts) builds each row from the bytes it read and
// wrote, so the main thread, the one SQLite writer, only inserts it; a sandbox without the front
// thread builds it in the journal service the same way.
import { masked, maskedHeaders } from '../../domain/journal-mask.js';
import { touchedIds } from '../../domain/touched-ids.js';
import { parseTraceparent } from '../../domain/traceparent.js';
import type { JournalSurface, NewJournalRow } from '../../store/journal-repo.js';

/** One request as the middleware saw it, before masking: nothing of it is stored as it is. */
export interface RequestRecord extends Omit<NewJournalRow, 'requestHeaders' | 'ids' | 'traceparent'> {
  /** The request's headers as they came (masked, and the traceparent read, when the row is built). */
  headers: Iterable<[string, string]>;
}

/** What only the main thread knows of a request the front thread read: it builds the row from this and the bytes. */
export type JournalNote = Pick<
  RequestRecord,
  'id' | 'merchantId' | 'surface' | 'path' | 'status' | 'durationMs' | 'startedAt' | 'endedAt' | 'wallAt' | 'fault' | 'script'
>;

/** What a request's bytes and answer say, beside its note. */
export type RequestParts = Omit<RequestRecord, keyof JournalNote>;

/**
 * A request's record: its note and its parts, every field named rather than `{ ...note, ...parts }`
 * (CONTRIBUTING.md: copies that add fields on the request path).
 */
export function requestRecord(note: JournalNote, parts: RequestParts): RequestRecord {
  return {
    id: note.id,
    merchantId: note.merchantId,
    surface: note.surface,
    path: note.path,
    status: note.status,
    durationMs: note.durationMs,
    startedAt: note.startedAt,
    endedAt: note.endedAt,
    wallAt: note.wallAt,
    fault: note.fault,
    script: note.script,
    method: parts.method,
    query: parts.query,
    idempotencyKey: parts.idempotencyKey,
    headers: parts.headers,
    requestBody: parts.requestBody,
    responseType: parts.responseType,
    responseBody: parts.responseBody,
  };
}

/** Longest body text kept (after masking); the rest is cut, and the cut said. */
export const BODY_LIMIT_CHARS = 16 * 1024;

/** Requests whose body is not kept (the control token of the sign-in form; a whole snapshot), and answers likewise (a snapshot holds every credential). */
const BODY_NOT_KEPT = new Set(['/_sandbox/login', '/_sandbox/import']);
const ANSWER_NOT_KEPT = new Set(['/_sandbox/export']);
/** Methods that carry a body. */
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Answers kept as text: JSON and plain text (pages are HTML, long and rebuilt from state; a stream never ends). */
const TEXT_ANSWER = /^(?:application\/(?:[\w.+-]*\+)?json|text\/plain)/i;

/** True when the journal keeps the body of a `method` request to `path`. */
export function keepsRequestBody(method: string, path: string): boolean {
  return WITH_BODY.has(method) && !BODY_NOT_KEPT.has(path);
}

/** How an answer is kept: a redirect as its Location, JSON or text as it is (`text` true: read its body), anything else by its type only. */
export function answerKept(
  path: string,
  status: number,
  header: (name: string) => string | null,
): { type: string | null; body: string | null; text: boolean } {
  const location = status >= 300 && status < 400 ? header('location') : null;
  if (location !== null) return { type: 'redirect', body: location, text: false };
  const type = header('content-type');
  if (type === null || !TEXT_ANSWER.test(type) || status === 204 || status === 304 || ANSWER_NOT_KEPT.has(path))
    return { type, body: null, text: false };
  return { type: (type.split(';')[0] ?? type).trim(), body: null, text: true };
}

/** Where a request went by its path. */
export function surfaceOf(path: string): JournalSurface {
  if (path.startsWith('/_sandbox')) return 'control';
  if (path.startsWith('/authenticate/') || path.startsWith('/pay/')) return 'page';
  return 'api';
}

const cut = (text: string | null) =>
  text === null || text.length <= BODY_LIMIT_CHARS
    ? text
    : `${text.slice(0, BODY_LIMIT_CHARS)}… [${text.length - BODY_LIMIT_CHARS} more characters not kept]`;

/** The row to store: every text masked, the ids read from the masked texts (the merchant of a page or control request is found from them later). */
export function journalRow(r: RequestRecord): NewJournalRow {
  const requestHeaders = maskedHeaders(r.headers);
  const query = masked(r.query);
  const requestBody = cut(r.requestBody === null ? null : masked(r.requestBody));
  const responseBody = cut(r.responseBody === null ? null : masked(r.responseBody));
  // A GET names what it read in its path; a write's answer names what it made (a list's would name every row).
  const ids = touchedIds([r.path, query, requestBody, r.method === 'GET' ? null : responseBody]);
  const trace = parseTraceparent(requestHeaders.traceparent);
  return {
    id: r.id,
    merchantId: r.merchantId,
    surface: r.surface,
    method: r.method,
    path: masked(r.path),
    query,
    status: r.status,
    durationMs: Math.round(r.durationMs * 1000) / 1000,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    wallAt: r.wallAt,
    idempotencyKey: r.idempotencyKey,
    requestHeaders,
    requestBody,
    responseType: r.responseType,
    responseBody,
    ids,
    traceparent: trace ? (requestHeaders.traceparent ?? null) : null,
    fault: r.fault,
    script: r.script,
  };
}
