// Merchants on demand in the control API: POST /_sandbox/merchants makes one (a merchant per test
// worker), GET lists the seeded and created ones a page at a time, DELETE removes a created one with everything it
// owns. The use cases are in services/merchants.ts.
import { Hono } from 'hono';
import { createMerchantSchema, MERCHANT_PAGE, merchantListQuery } from '../../contracts/merchants.js';
import { deletedMerchantView, merchantListView, merchantView, toDeletedMerchantView, toMerchantView } from '../../views/merchant.js';
import { listView } from '../../views/list.js';
import type { AppDeps, AppEnv } from '../app-env.js';
import type { OpenApiRoute } from '../openapi/route.js';
import { controlRoute } from './control-route.js';
import { validateQuery, validOptionalJson } from '../validation.js';

/** GET and POST /merchants, GET and DELETE /merchants/{id} under /_sandbox. */
export function controlMerchantRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { merchants } = deps.services;

  app.get('/merchants', (c) => c.json(listView(merchants.list(validateQuery(c, merchantListQuery)), toMerchantView)));

  app.post('/merchants', async (c) => {
    const input = await validOptionalJson(c, createMerchantSchema);
    return c.json(toMerchantView(merchants.create(input)), 201);
  });

  app.get('/merchants/:id', (c) => c.json(toMerchantView(merchants.get(c.req.param('id')))));

  app.delete('/merchants/:id', async (c) => {
    const id = c.req.param('id');
    const removed = await merchants.delete(id);
    deps.wake();
    return c.json(toDeletedMerchantView(id, removed));
  });

  return app;
}

/** The routes of this module, for /openapi.json. */
export const merchantsOpenApi: OpenApiRoute[] = [
  controlRoute(
    'get',
    '/merchants',
    'List the merchants, seeded ones first, then created ones in the order they were made, with their credentials; a page at a time',
    `{object: "list", data: [merchant, ...], has_more}: up to limit (default ${MERCHANT_PAGE}) merchants; when has_more, pass the last id as starting_after for the next page`,
    {
      query: merchantListQuery,
      responseSchema: merchantListView,
    },
  ),
  controlRoute(
    'post',
    '/merchants',
    'Create a merchant with its own terminal, API key and webhook secret, isolated from every other (a merchant per test worker)',
    'the merchant: {id, name, terNO, public_key, private_key, api_key, webhook_secret, currency, seeded: false, terminals, api_keys}',
    {
      body: createMerchantSchema,
      bodyOptional: true,
      status: 201,
      errors: ['terminal_in_use'],
      responseSchema: merchantView,
    },
  ),
  controlRoute('get', '/merchants/:id', 'One merchant with its credentials', 'the merchant', { responseSchema: merchantView }),
  controlRoute(
    'delete',
    '/merchants/:id',
    'Delete a created merchant and every row it owns (payments, transactions, refunds, events, deliveries, endpoints, tokens, sessions, chargebacks, settlements, scenarios, jobs, idempotency keys); seeded merchants are refused',
    '{id, deleted: true, removed: {table: rows, ...}}',
    {
      errors: ['merchant_seeded'],
      responseSchema: deletedMerchantView,
    },
  ),
];
