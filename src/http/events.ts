// /v1/events: the merchant's own events (S2S and /v1/ alike), in the spec §6.2 envelope that the
// webhooks carry, newest first. Another merchant's event is a 404 like a missing one.
import { Hono } from 'hono';
import { SandboxError } from '../errors.js';
import type { AppDeps, AppEnv } from './app-env.js';
import type { OpenApiRoute } from './openapi/route.js';
import { currentMerchant } from './middleware/bearer-auth.js';
import { listEventsQuery } from '../contracts/webhook-endpoint-schema.js';
import { eventView, toEventView } from '../views/event.js';
import { listOf, listView } from '../views/list.js';
import { validateQuery } from './validation.js';
import { cursorRow, readPage } from '../services/pagination.js';

/** The earliest and latest creation times (ms) the created[...] filters allow. */
function createdRange(query: { 'created[gte]'?: number; 'created[gt]'?: number; 'created[lte]'?: number; 'created[lt]'?: number }) {
  const lower = [
    query['created[gte]'] !== undefined ? query['created[gte]'] * 1000 : undefined,
    query['created[gt]'] !== undefined ? (query['created[gt]'] + 1) * 1000 : undefined,
  ];
  const upper = [
    query['created[lte]'] !== undefined ? query['created[lte]'] * 1000 + 999 : undefined,
    query['created[lt]'] !== undefined ? query['created[lt]'] * 1000 - 1 : undefined,
  ];
  const defined = (values: Array<number | undefined>) => values.filter((v): v is number => v !== undefined);
  const since = defined(lower);
  const until = defined(upper);
  return { since: since.length ? Math.max(...since) : undefined, until: until.length ? Math.min(...until) : undefined };
}

/** The /v1/events routes (bearer-authenticated by the /v1/* middleware). */
export function eventRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const events = deps.services.merchantEvents;

  app.get('/v1/events', (c) => {
    const query = validateQuery(c, listEventsQuery);
    const merchant = currentMerchant(c).id;
    const limit = query.limit ?? 10;
    const startingAfter = cursorRow(
      query.starting_after,
      (id) => events.get(merchant, id),
      `no such event: ${query.starting_after}; pass the id of the last event of the previous page as starting_after`,
    );
    const { since, until } = createdRange(query);
    const page = readPage(limit, (n) =>
      events.list(merchant, { type: query.type, resourceId: query.resource_id, since, until, startingAfter, limit: n }),
    );
    return c.json(listView(page, toEventView));
  });

  app.get('/v1/events/:id', (c) => {
    const event = events.get(currentMerchant(c).id, c.req.param('id'));
    if (!event) throw new SandboxError('resource_missing', `no event ${c.req.param('id')}; list yours with GET /v1/events`, 'id');
    return c.json(toEventView(event));
  });

  return app;
}

/** The OpenAPI entries of these routes. */
export const eventsOpenApi: OpenApiRoute[] = [
  {
    method: 'get',
    path: '/v1/events',
    tag: 'Events',
    auth: 'bearer',
    summary: 'List your events, newest first',
    query: listEventsQuery,
    response: '{object: "list", data: [event], has_more}',
    responseSchema: listOf(eventView),
  },
  {
    method: 'get',
    path: '/v1/events/:id',
    tag: 'Events',
    auth: 'bearer',
    summary: 'Retrieve one event',
    response: '{id, object: "event", event, data, created_at}: the envelope its webhooks carried',
    responseSchema: eventView,
  },
];
