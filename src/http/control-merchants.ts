// Merchants on demand in the control API: POST /_sandbox/merchants makes one (a merchant per test
// worker), GET lists the seeded and created ones, DELETE removes a created one with everything it
// owns. The use cases are in services/merchants.ts.
import { Hono } from 'hono';
import { createMerchantSchema, type MerchantRecord } from '../services/merchants.js';
import type { AppDeps, AppEnv } from './app.js';
import type { OpenApiRoute } from './openapi.js';
import { readOptionalJson } from './validation.js';
import { validate } from '../contracts/validate.js';

/**
 * A merchant as the control API shows it: its first terminal and API key at the top level (what a
 * test worker needs, ready to use), every terminal and key below.
 */
export function merchantView(m: MerchantRecord) {
  const first = m.terminals[0];
  return {
    object: 'merchant' as const,
    id: m.id,
    name: m.name,
    terNO: first?.terNo ?? null,
    public_key: first?.publicKey ?? null,
    private_key: first?.privateKey ?? null,
    api_key: m.apiKeys[0] ?? null,
    webhook_secret: m.webhookSecret,
    currency: m.currency,
    seeded: m.createdBy === 'fixtures',
    terminals: m.terminals.map((t) => ({ terNO: t.terNo, public_key: t.publicKey, private_key: t.privateKey })),
    api_keys: m.apiKeys,
  };
}

/** GET and POST /merchants, GET and DELETE /merchants/{id} under /_sandbox. */
export function controlMerchantRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { merchants } = deps.services;

  app.get('/merchants', (c) => c.json({ object: 'list', data: merchants.list().map(merchantView), has_more: false }));

  app.post('/merchants', async (c) => {
    const input = validate(createMerchantSchema, await readOptionalJson(c));
    return c.json(merchantView(merchants.create(input)), 201);
  });

  app.get('/merchants/:id', (c) => c.json(merchantView(merchants.get(c.req.param('id')))));

  app.delete('/merchants/:id', async (c) => {
    const id = c.req.param('id');
    const removed = await merchants.delete(id);
    deps.wake();
    return c.json({ id, object: 'merchant', deleted: true, removed });
  });

  return app;
}

const control = (method: OpenApiRoute['method'], path: string, summary: string, response: string, extra: Partial<OpenApiRoute> = {}): OpenApiRoute => ({
  method,
  path: `/_sandbox${path}`,
  summary,
  tag: 'Sandbox control',
  auth: 'control',
  response,
  ...extra,
});

/** The routes of this module, for /openapi.json. */
export const merchantsOpenApi: OpenApiRoute[] = [
  control('get', '/merchants', 'List every merchant, seeded and created, with its credentials', '{object: "list", data: [merchant, ...], has_more: false}'),
  control('post', '/merchants', 'Create a merchant with its own terminal, API key and webhook secret, isolated from every other (a merchant per test worker)', 'the merchant: {id, name, terNO, public_key, private_key, api_key, webhook_secret, currency, seeded: false, terminals, api_keys}', {
    body: createMerchantSchema,
    bodyOptional: true,
    status: 201,
    errors: ['terminal_in_use'],
  }),
  control('get', '/merchants/:id', 'One merchant with its credentials', 'the merchant'),
  control('delete', '/merchants/:id', 'Delete a created merchant and every row it owns (payments, transactions, refunds, events, deliveries, endpoints, tokens, sessions, chargebacks, settlements, scenarios, jobs, idempotency keys); seeded merchants are refused', '{id, deleted: true, removed: {table: rows, ...}}', {
    errors: ['merchant_seeded'],
  }),
];
