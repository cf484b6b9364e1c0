// The request journal as the control API shows it: one request with its answer (masked when it
// was written), and the verdict of an expectation with its near misses.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { JournalRow } from '../store/journal-repo.js';
import type { ExpectationResult, RecordedRequest } from '../domain/request-match.js';
import { iso, isoTime } from './time.js';

/** One request and its answer. */
export const journalEntryView = lazySchema(() =>
  z
    .object({
      id: z.string().describe('req_...: the X-Request-Id the answer carried'),
      object: z.literal('request'),
      surface: z.enum(['api', 'page', 'control']).describe("the merchant's API (/api, /v1), a customer page, or the control plane"),
      method: z.string(),
      path: z.string(),
      query: z.string().describe('the query string, masked, without the ?'),
      status: z.number().int().describe('the answer status; 444 when a fault withheld the answer'),
      duration_ms: z.number(),
      merchant_id: z.string().nullable().describe('the merchant whose credentials it carried, or whose object it touched; null when none'),
      idempotency_key: z.string().nullable(),
      at: isoTime.describe('sandbox time it came in'),
      ended_at: isoTime.describe('sandbox time it was answered (later than at by a clock jump it made)'),
      wall_at: isoTime.describe('wall-clock time it came in'),
      request: z.object({
        headers: z
          .record(z.string(), z.string())
          .describe('names in lower case; Authorization keeps its scheme only, cookies are not kept'),
        body: z.string().nullable().describe('the body as sent, masked (card numbers to 6 + 4 digits, CVVs, keys and secrets redacted)'),
      }),
      response: z.object({
        type: z.string().nullable().describe('the media type of the answer, or "redirect"'),
        body: z.string().nullable().describe("a JSON or text answer, masked; a redirect's Location; null for pages"),
      }),
      ids: z.array(z.string()).describe('the ids it touched: objects, transIDs, page tokens'),
      traceparent: z.string().nullable().describe('the W3C traceparent it carried'),
      fault: z.string().nullable().describe('the API fault injected into it'),
      script: z
        .string()
        .nullable()
        .describe('what forced the outcome of a payment it made: an X-Sandbox-Outcome header or a scenario entry'),
    })
    .meta({ id: 'RequestEntry' }),
);

/** The entry's TS type. */
export type JournalEntryView = z.infer<ReturnType<typeof journalEntryView>>;

/** A journal row as the API answers it. */
export function toJournalEntryView(row: JournalRow): JournalEntryView {
  return {
    id: row.id,
    object: 'request',
    surface: row.surface,
    method: row.method,
    path: row.path,
    query: row.query,
    status: row.status,
    duration_ms: row.durationMs,
    merchant_id: row.merchantId,
    idempotency_key: row.idempotencyKey,
    at: iso(row.startedAt),
    ended_at: iso(row.endedAt),
    wall_at: iso(row.wallAt),
    request: { headers: row.requestHeaders, body: row.requestBody },
    response: { type: row.responseType, body: row.responseBody },
    ids: row.ids,
    traceparent: row.traceparent,
    fault: row.fault,
    script: row.script,
  };
}

/** A journal row as an expectation reads it. */
export function toRecordedRequest(row: JournalRow): RecordedRequest {
  return {
    id: row.id,
    method: row.method,
    path: row.path,
    status: row.status,
    at: iso(row.startedAt),
    headers: row.requestHeaders,
    body: row.requestBody,
  };
}

const recordedView = lazySchema(() =>
  z.object({ id: z.string(), method: z.string(), path: z.string(), status: z.number().int(), at: isoTime }),
);

/** The verdict of an expectation. */
export const expectationResultView = lazySchema(() =>
  z
    .object({
      ok: z.boolean().describe('true when the requests matched as expected'),
      matched: z.number().int().describe('how many requests match'),
      message: z.string().describe('what was expected and found, with the near misses'),
      matches: z.array(recordedView()).describe('the matching requests, oldest first'),
      near_misses: z
        .array(
          z.object({
            request: recordedView(),
            differences: z.array(
              z.object({
                field: z.string().describe('method, path, body.<field> or headers.<name>'),
                expected: z.unknown().optional(),
                actual: z.unknown().optional().describe('absent when the request did not have the field'),
              }),
            ),
          }),
        )
        .describe('the closest requests that do not match, closest first'),
    })
    .meta({ id: 'RequestExpectationResult' }),
);

/** The verdict's TS type. */
export type ExpectationResultView = z.infer<ReturnType<typeof expectationResultView>>;

const short = (r: RecordedRequest) => ({ id: r.id, method: r.method, path: r.path, status: r.status, at: r.at });

/** An expectation's verdict as the API answers it. */
export function toExpectationResultView(result: ExpectationResult): ExpectationResultView {
  return {
    ok: result.ok,
    matched: result.matches.length,
    message: result.message,
    matches: result.matches.map(short),
    near_misses: result.nearMisses.map((n) => ({ request: short(n.request), differences: n.differences })),
  };
}
