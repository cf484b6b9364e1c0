// The request journal and a payment's timeline in the control API: GET /requests (filtered, paged,
// newest first), POST /requests/expect (an expectation checked, with near misses) and
// GET /payments/{id}/timeline. Reads of these routes are not journaled (middleware/journal.ts).
import { Hono } from 'hono';
import { SandboxError } from '../../errors.js';
import { parseSince } from '../../domain/since.js';
import { expectationSchema, journalQuery, type JournalQuery } from '../../contracts/journal.js';
import type { Services } from '../../services/services.js';
import { expectationResultView, journalEntryView, toExpectationResultView, toJournalEntryView } from '../../views/journal.js';
import { listOf, listView } from '../../views/list.js';
import { timelineView, toTimelineView } from '../../views/timeline.js';
import type { AppDeps, AppEnv } from '../app-env.js';
import type { OpenApiRoute } from '../openapi/route.js';
import { validateQuery, validJson } from '../validation.js';
import { controlRoute } from './control-route.js';

/** The journal's filters from a checked query: `payment` becomes the ids its requests touch (404 for no payment). */
export function journalFilter(services: Services, query: JournalQuery) {
  if (!services.journal.enabled)
    throw new SandboxError(
      'invalid_state',
      'the request journal is off (--journal-size 0); start the sandbox with --journal-size 10000 to keep requests',
      'journal-size',
    );
  const status =
    query.status === undefined
      ? undefined
      : query.status.endsWith('xx')
        ? { class: Number(query.status[0]) }
        : { exact: Number(query.status) };
  return {
    method: query.method,
    path: query.path,
    status,
    merchantId: query.merchant,
    ids: query.payment === undefined ? undefined : services.timelines.relatedIds(query.payment),
    idempotencyKey: query.idempotency_key,
    since: query.since === undefined ? undefined : parseSince(query.since, services.clock.now()),
    limit: query.limit ?? 100,
    startingAfter: query.starting_after,
    endingBefore: query.ending_before,
  };
}

/** /requests, /requests/expect and /payments/:id/timeline under /_sandbox. */
export function controlJournalRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { services } = deps;

  app.get('/requests', (c) => {
    const query = validateQuery(c, journalQuery);
    if (query.starting_after !== undefined && query.ending_before !== undefined)
      throw new SandboxError(
        'parameter_invalid',
        'give starting_after (older requests) or ending_before (newer ones), not both',
        'ending_before',
      );
    return c.json(listView(services.journal.list(journalFilter(services, query)), toJournalEntryView));
  });

  app.post('/requests/expect', async (c) => {
    const expectation = await validJson(c, expectationSchema);
    journalFilter(services, {});
    return c.json(toExpectationResultView(services.journal.expect(expectation)));
  });

  app.get('/payments/:id/timeline', (c) => c.json(toTimelineView(services.timelines.of(c.req.param('id')))));
  return app;
}

/** The routes of this module, for /openapi.json. */
export const journalOpenApi: OpenApiRoute[] = [
  controlRoute(
    'get',
    '/requests',
    'The request journal: every request to the API, the customer pages and the control plane with its answer, masked; newest first, filtered',
    'the requests',
    { query: journalQuery, responseSchema: listOf(journalEntryView), errors: ['resource_missing', 'invalid_state'] },
  ),
  controlRoute(
    'post',
    '/requests/expect',
    'Check that the merchant sent a request (method, path, partial body, headers, count): ok, or the closest requests and what differs',
    'the verdict with the matches and the near misses (ok false is still a 200)',
    { body: expectationSchema, responseSchema: expectationResultView, errors: ['invalid_state'] },
  ),
  controlRoute(
    'get',
    '/payments/:id/timeline',
    "One payment's story (S2S transID or /v1/ id, or its session, refund or chargeback id): requests, state changes and their causes, webhook attempts, refunds, chargebacks, settlement",
    'the timeline, oldest first',
    { responseSchema: timelineView, errors: ['resource_missing'] },
  ),
];
