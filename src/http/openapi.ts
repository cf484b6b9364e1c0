// GET /openapi.json: an OpenAPI 3.1 document assembled from the route lists each route module
// exports (OpenApiRoute[], next to the routes it defines). Request schemas are the same zod schemas
// that validate the requests, converted with z.toJSONSchema, so the document and the validation
// cannot drift. test/routes/openapi.test.ts compares the document with app.routes: an undocumented
// route fails.
import { Hono } from 'hono';
import * as z from 'zod';
import { VERSION } from '../version.js';
import type { AppDeps, AppEnv } from './app-env.js';
import { assetsOpenApi } from './assets.js';
import { authenticatePagesOpenApi } from './authenticate-pages.js';
import { checkoutPagesOpenApi } from './checkout-pages.js';
import { checkoutSessionsOpenApi } from './checkout-sessions.js';
import { dashboardOpenApi } from './control-dashboard.js';
import { deliveriesOpenApi } from './control-deliveries.js';
import { disputesOpenApi } from './control-disputes.js';
import { faultsOpenApi } from './control-faults.js';
import { merchantsOpenApi } from './control-merchants.js';
import { scenariosOpenApi } from './control-scenarios.js';
import { signaturesOpenApi } from './control-signatures.js';
import { stateOpenApi } from './control-state.js';
import { streamOpenApi } from './control-stream.js';
import { controlOpenApi, loginOpenApi } from './control.js';
import { eventsOpenApi } from './events.js';
import { Components, ERROR_SCHEMA } from './openapi-components.js';
import { loadExamples } from './openapi-examples.js';
import { operation } from './openapi-operation.js';
import { type OpenApiRoute, openApiPath } from './openapi-route.js';
import { OPENAPI_TAGS } from './openapi-tags.js';
import { webhookOperations } from './openapi-webhooks.js';
import { paymentsOpenApi } from './payments.js';
import { refundsOpenApi } from './refunds.js';
import { s2sEncryptedOpenApi } from './s2s-encrypted.js';
import { s2sOpenApi } from './s2s.js';
import { tokensOpenApi } from './tokens.js';
import { v1RefundsOpenApi } from './v1-refunds.js';
import { webhookEndpointsOpenApi } from './webhook-endpoints.js';

/** Assembles the OpenAPI 3.1 document from route lists. */
export function buildOpenApiDocument(routes: readonly OpenApiRoute[], serverUrl: string): Record<string, unknown> {
  const components = new Components();
  const examples = loadExamples(serverUrl);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method] = operation(route, components, examples);
  }
  const webhooks = webhookOperations(components, examples.webhooks);
  components.schemas.Error = { ...ERROR_SCHEMA, examples: [examples.error] };
  return {
    openapi: '3.1.0',
    info: {
      title: 'paysandbox',
      version: VERSION,
      description:
        'A local, stateful sandbox of the payment gateway. Errors use one body shape (components.schemas.Error); webhooks lists what the sandbox POSTs to your endpoints.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: serverUrl }],
    tags: OPENAPI_TAGS,
    paths,
    webhooks,
    components: {
      schemas: components.schemas,
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'an sk_test_ API key, e.g. sk_test_sandbox' },
        controlToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'the --control-token value; not needed from loopback when none is set',
        },
      },
    },
  };
}

/** This module's own route: the document. */
export const openApiOpenApi: OpenApiRoute[] = [
  {
    method: 'get',
    path: '/openapi.json',
    tag: 'Meta',
    auth: 'none',
    summary: 'This document',
    response: 'the OpenAPI 3.1 document of every endpoint',
    responseSchema: z.record(z.string(), z.unknown()).describe('an OpenAPI 3.1 document'),
  },
];

/** Every documented route, in the document's order. A route module's list is added here when the module is mounted in app.ts. */
export const OPENAPI_ROUTES: readonly OpenApiRoute[] = [
  ...s2sOpenApi,
  ...openApiOpenApi,
  ...controlOpenApi,
  ...s2sEncryptedOpenApi,
  ...refundsOpenApi,
  ...deliveriesOpenApi,
  ...faultsOpenApi,
  ...streamOpenApi,
  ...scenariosOpenApi,
  ...stateOpenApi,
  ...paymentsOpenApi,
  ...v1RefundsOpenApi,
  ...tokensOpenApi,
  ...webhookEndpointsOpenApi,
  ...eventsOpenApi,
  ...checkoutSessionsOpenApi,
  ...disputesOpenApi,
  ...dashboardOpenApi,
  ...merchantsOpenApi,
  ...signaturesOpenApi,
  ...authenticatePagesOpenApi,
  ...checkoutPagesOpenApi,
  ...loginOpenApi,
  ...assetsOpenApi,
];

/** The route that serves the document (built once, on first request, when the public URL is known). */
export function openApiRoutes(deps: AppDeps, routes: readonly OpenApiRoute[] = OPENAPI_ROUTES) {
  const app = new Hono<AppEnv>();
  let cached: Record<string, unknown> | undefined;
  app.get('/openapi.json', (c) => {
    cached ??= buildOpenApiDocument(routes, deps.services.publicUrl());
    return c.json(cached);
  });
  return app;
}
