// /v1/webhook_endpoints: where a merchant's events go. The signing secret is in the answer only
// when it is new (create, rotate_secret); every other answer leaves it out.
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { AppDeps, AppEnv } from './app-env.js';
import type { OpenApiRoute } from './openapi/route.js';
import { currentMerchant } from './middleware/bearer-auth.js';
import { createEndpointSchema, listEndpointsQuery, updateEndpointSchema } from '../contracts/webhook-endpoint-schema.js';
import { listOf, listView } from '../views/list.js';
import {
  deletedWebhookEndpointView,
  toWebhookEndpointView,
  webhookEndpointView,
  webhookEndpointWithSecretView,
} from '../views/webhook-endpoint.js';
import { validateQuery, validJson } from './validation.js';
import { present } from '../errors.js';

/** The /v1/webhook_endpoints routes (bearer-authenticated by the /v1/* middleware). */
export function webhookEndpointRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const endpoints = deps.services.webhookEndpoints;

  app.post('/v1/webhook_endpoints', async (c) => {
    const input = await validJson(c, createEndpointSchema);
    return c.json(toWebhookEndpointView(endpoints.create(currentMerchant(c).id, input), true));
  });

  app.get('/v1/webhook_endpoints', (c) => {
    const query = validateQuery(c, listEndpointsQuery);
    const page = endpoints.list(currentMerchant(c).id, query.limit ?? 10, query.starting_after);
    return c.json(listView(page, (e) => toWebhookEndpointView(e)));
  });

  app.get('/v1/webhook_endpoints/:id', (c) => c.json(toWebhookEndpointView(endpoints.get(currentMerchant(c).id, c.req.param('id')))));

  const update = async (c: Context<AppEnv>) => {
    const patch = await validJson(c, updateEndpointSchema);
    return c.json(toWebhookEndpointView(endpoints.update(currentMerchant(c).id, present(c.req.param('id'), 'the :id of the path'), patch)));
  };
  app.post('/v1/webhook_endpoints/:id', update);
  app.patch('/v1/webhook_endpoints/:id', update);

  app.delete('/v1/webhook_endpoints/:id', (c) => {
    const deleted = endpoints.delete(currentMerchant(c).id, c.req.param('id'));
    return c.json({ id: deleted.id, object: 'webhook_endpoint', deleted: true });
  });

  app.post('/v1/webhook_endpoints/:id/rotate_secret', (c) =>
    c.json(toWebhookEndpointView(endpoints.rotateSecret(currentMerchant(c).id, c.req.param('id')), true)),
  );

  return app;
}

/** The OpenAPI entries of these routes. */
export const webhookEndpointsOpenApi: OpenApiRoute[] = [
  {
    method: 'post',
    path: '/v1/webhook_endpoints',
    tag: 'Webhook endpoints',
    auth: 'bearer',
    summary: 'Register a webhook endpoint and choose its events',
    body: createEndpointSchema,
    response: 'the endpoint, with its signing secret (shown only here and on rotation)',
    responseSchema: webhookEndpointWithSecretView,
  },
  {
    method: 'get',
    path: '/v1/webhook_endpoints',
    tag: 'Webhook endpoints',
    auth: 'bearer',
    summary: 'List your webhook endpoints, newest first',
    query: listEndpointsQuery,
    response: '{object: "list", data, has_more}; secrets are not included',
    responseSchema: listOf(webhookEndpointView),
  },
  {
    method: 'get',
    path: '/v1/webhook_endpoints/:id',
    tag: 'Webhook endpoints',
    auth: 'bearer',
    summary: 'Retrieve a webhook endpoint',
    response: 'the endpoint, without its secret',
    responseSchema: webhookEndpointView,
  },
  {
    method: 'post',
    path: '/v1/webhook_endpoints/:id',
    tag: 'Webhook endpoints',
    auth: 'bearer',
    summary: 'Update url, events, description or enabled',
    body: updateEndpointSchema,
    response: 'the updated endpoint, without its secret',
    responseSchema: webhookEndpointView,
  },
  {
    method: 'patch',
    path: '/v1/webhook_endpoints/:id',
    tag: 'Webhook endpoints',
    auth: 'bearer',
    summary: 'Update url, events, description or enabled (same as POST)',
    body: updateEndpointSchema,
    response: 'the updated endpoint, without its secret',
    responseSchema: webhookEndpointView,
  },
  {
    method: 'delete',
    path: '/v1/webhook_endpoints/:id',
    tag: 'Webhook endpoints',
    auth: 'bearer',
    summary: 'Delete a webhook endpoint (no new events go to it)',
    response: '{id, object: "webhook_endpoint", deleted: true}',
    responseSchema: deletedWebhookEndpointView,
  },
  {
    method: 'post',
    path: '/v1/webhook_endpoints/:id/rotate_secret',
    tag: 'Webhook endpoints',
    auth: 'bearer',
    summary: 'Replace the signing secret; the old one keeps signing for 24 h',
    response: 'the endpoint with its new secret; previous_secret_expires_at says when the old one stops',
    responseSchema: webhookEndpointWithSecretView,
  },
];
