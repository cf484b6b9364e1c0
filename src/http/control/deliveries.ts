// The webhook workbench in the control API: deliveries (list, show, replay, retry-failed) and
// events (list, show, replay), with the fault rules and the activity stream mounted alongside.
// Behind the control guard (middleware/control-guard.ts) like all of /_sandbox.
import { Hono } from 'hono';
import type { AppDeps, AppEnv } from '../app-env.js';
import { controlFaultRoutes } from './faults.js';
import { controlStreamRoutes } from './stream.js';
import { validateQuery, validOptionalJson } from '../validation.js';
import { deliveryQuery, replayBody, retryBody } from '../../contracts/deliveries.js';
import { eventQuery } from '../../contracts/events.js';
import type { OpenApiRoute } from '../openapi/route.js';
import { controlRoute } from './control-route.js';
import { deliveryDetailView, deliveryView, retryFailedView, toDeliveryDetailView, toDeliveryView } from '../../views/delivery.js';
import { controlEventDetailView, controlEventView, toControlEventDetailView, toControlEventView } from '../../views/event.js';
import { listOf, listView } from '../../views/list.js';

/** /deliveries, /events, /faults and /stream under /_sandbox. */
export function controlDeliveryRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { deliveries } = deps.services;

  app.get('/deliveries', (c) => c.json(listView(deliveries.list(validateQuery(c, deliveryQuery)), toDeliveryView)));

  app.post('/deliveries/retry-failed', async (c) => {
    const body = await validOptionalJson(c, retryBody);
    const result = deliveries.retryFailed(body.since);
    deps.wake();
    return c.json(result);
  });

  app.get('/deliveries/:id', (c) => {
    const { delivery, request, attempts } = deliveries.get(c.req.param('id'));
    return c.json(toDeliveryDetailView(delivery, request, attempts, deps.services.signatures.refusals(attempts)));
  });

  app.post('/deliveries/:id/replay', async (c) => {
    const { to } = await validOptionalJson(c, replayBody);
    return c.json(toDeliveryView(deliveries.replay(c.req.param('id'), to)), 201);
  });

  app.get('/events', (c) => c.json(listView(deliveries.listEvents(validateQuery(c, eventQuery)), toControlEventView)));
  app.get('/events/:id', (c) => {
    const { event, payload, deliveries: sent } = deliveries.getEvent(c.req.param('id'));
    return c.json(toControlEventDetailView(event, payload, sent));
  });

  app.post('/events/:id/replay', async (c) => {
    const { to } = await validOptionalJson(c, replayBody);
    return c.json(toDeliveryView(deliveries.replayEvent(c.req.param('id'), to)), 201);
  });

  app.route('/', controlFaultRoutes(deps));
  app.route('/', controlStreamRoutes(deps));
  return app;
}

/** The routes of this module, for /openapi.json (the faults and the stream list theirs). */
export const deliveriesOpenApi: OpenApiRoute[] = [
  controlRoute(
    'get',
    '/deliveries',
    'List webhook deliveries, newest first, with filters',
    'the deliveries with status, attempts and last result',
    { query: deliveryQuery, responseSchema: listOf(deliveryView) },
  ),
  controlRoute(
    'post',
    '/deliveries/retry-failed',
    'Put failed deliveries (created since a time, or all) back in the queue, due now',
    'the deliveries requeued',
    { body: retryBody, bodyOptional: true, responseSchema: retryFailedView },
  ),
  controlRoute(
    'get',
    '/deliveries/:id',
    'One delivery with every attempt (request and response headers and bodies, latency, error kind)',
    'the delivery and its attempts',
    { responseSchema: deliveryDetailView },
  ),
  controlRoute('post', '/deliveries/:id/replay', 'Send a delivery again now, once, optionally to another URL', 'the new manual delivery', {
    body: replayBody,
    bodyOptional: true,
    status: 201,
    responseSchema: deliveryView,
  }),
  controlRoute('get', '/events', 'List events of every merchant, newest first, with filters', 'the events', {
    query: eventQuery,
    responseSchema: listOf(controlEventView),
  }),
  controlRoute('get', '/events/:id', 'One event with its deliveries', 'the event and its deliveries', {
    responseSchema: controlEventDetailView,
  }),
  controlRoute('post', '/events/:id/replay', 'Deliver an event again now, once, optionally to another URL', 'the new manual delivery', {
    body: replayBody,
    bodyOptional: true,
    status: 201,
    responseSchema: deliveryView,
  }),
];
