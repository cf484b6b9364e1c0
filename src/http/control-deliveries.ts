// The webhook workbench in the control API: deliveries (list, show, replay, retry-failed) and
// events (list, show, replay), with the fault rules and the activity stream mounted alongside.
// Behind the control guard (middleware/control-guard.ts) like all of /_sandbox.
import { Hono } from 'hono';
import * as z from 'zod';
import { queryInteger } from '../contracts/v1-common.js';
import { parseSince } from '../services/deliveries.js';
import type { AppDeps, AppEnv } from './app-env.js';
import { controlFaultRoutes } from './control-faults.js';
import { controlStreamRoutes } from './control-stream.js';
import { httpUrl } from '../contracts/v1-common.js';
import { readOptionalJson, validateQuery } from './validation.js';
import { validate } from '../contracts/validate.js';
import { SINCE_PATTERN } from '../contracts/patterns.js';
import { DELIVERY_STATUSES, orList } from '../domain/vocabularies.js';

const since = z
  .string()
  .refine((text) => parseSince(text, 0) !== undefined, {
    message: 'since must be a duration back from now such as "10m" or "1h", or an ISO time such as "2026-01-15T12:00:00Z"',
  })
  .meta({ pattern: SINCE_PATTERN })
  .optional()
  .describe('a duration back from now such as "10m" or "1h", or an ISO time such as "2026-01-15T12:00:00Z"');
const limit = queryInteger(1, 1000).optional().describe('a whole number from 1 to 1000');
const url = httpUrl('to', 'http://127.0.0.1:3000/webhooks').optional().describe('an http(s) URL such as http://127.0.0.1:3000/webhooks');

/** GET /_sandbox/deliveries query. */
export const deliveryQuery = z
  .object({
    status: z.enum(DELIVERY_STATUSES).optional().describe(orList(DELIVERY_STATUSES)),
    event: z.string().optional().describe('an event type such as payment.authorized'),
    event_id: z.string().optional().describe('an event id (evt_...)'),
    url: z.string().optional().describe('the exact webhook URL'),
    merchant: z.string().optional().describe('a merchant id such as mer_sandbox'),
    since,
    limit,
    starting_after: z.string().optional().describe('the id of the last delivery of the previous page'),
  })
  .strict();

/** GET /_sandbox/events query. */
export const eventQuery = z
  .object({
    type: z.string().optional().describe('an event type such as payment.authorized'),
    resource: z.string().optional().describe('the id of the object the event is about (transID, pay_...)'),
    merchant: z.string().optional().describe('a merchant id such as mer_sandbox'),
    since,
    limit,
    starting_after: z.string().optional().describe('the id of the last event of the previous page'),
  })
  .strict();

/** POST .../replay body (optional). */
export const replayBody = z.object({ to: url }).strict();
/** POST /_sandbox/deliveries/retry-failed body (optional). */
export const retryBody = z.object({ since }).strict();

/** /deliveries, /events, /faults and /stream under /_sandbox. */
export function controlDeliveryRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { deliveries } = deps.services;

  app.get('/deliveries', (c) => c.json(deliveries.list(validateQuery(c, deliveryQuery))));

  app.post('/deliveries/retry-failed', async (c) => {
    const body = validate(retryBody, await readOptionalJson(c));
    const result = deliveries.retryFailed(body.since);
    deps.wake();
    return c.json(result);
  });

  app.get('/deliveries/:id', (c) => c.json(deliveries.get(c.req.param('id'))));

  app.post('/deliveries/:id/replay', async (c) => {
    const { to } = validate(replayBody, await readOptionalJson(c));
    return c.json(deliveries.replay(c.req.param('id'), to), 201);
  });

  app.get('/events', (c) => c.json(deliveries.listEvents(validateQuery(c, eventQuery))));
  app.get('/events/:id', (c) => c.json(deliveries.getEvent(c.req.param('id'))));

  app.post('/events/:id/replay', async (c) => {
    const { to } = validate(replayBody, await readOptionalJson(c));
    return c.json(deliveries.replayEvent(c.req.param('id'), to), 201);
  });

  app.route('/', controlFaultRoutes(deps));
  app.route('/', controlStreamRoutes(deps));
  return app;
}
