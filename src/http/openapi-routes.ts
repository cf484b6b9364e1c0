// GET /openapi.json: every route module's OpenApiRoute list, in the document's order, and the route
// that serves the document openapi/document.ts assembles from them. A route module's list is added
// here when the module is mounted in app.ts; test/routes/openapi.test.ts fails on an undocumented route.
import { Hono } from 'hono';
import * as z from 'zod';
import type { AppDeps, AppEnv } from './app-env.js';
import { buildOpenApiDocument } from './openapi/document.js';
import type { OpenApiRoute } from './openapi/route.js';
import { assetsOpenApi } from './assets.js';
import { authenticatePagesOpenApi } from './customer-pages/authenticate.js';
import { checkoutPagesOpenApi } from './customer-pages/checkout.js';
import { checkoutSessionsOpenApi } from './checkout-sessions.js';
import { controlOpenApi, loginOpenApi } from './control/routes.js';
import { dashboardOpenApi } from './control/dashboard.js';
import { deliveriesOpenApi } from './control/deliveries.js';
import { disputesOpenApi } from './control/disputes.js';
import { tokenScriptsOpenApi } from './control/tokens.js';
import { eventsOpenApi } from './events.js';
import { faultsOpenApi } from './control/faults.js';
import { merchantsOpenApi } from './control/merchants.js';
import { mcpOpenApi } from './control/mcp.js';
import { llmsTxtOpenApi } from './llms-txt.js';
import { paymentsOpenApi } from './payments.js';
import { refundsOpenApi } from './refunds.js';
import { s2sEncryptedOpenApi } from './s2s-encrypted.js';
import { s2sOpenApi } from './s2s.js';
import { scenariosOpenApi } from './control/scenarios.js';
import { signaturesOpenApi } from './control/signatures.js';
import { journalOpenApi } from './control/journal.js';
import { stateOpenApi } from './control/state.js';
import { streamOpenApi } from './control/stream.js';
import { tokensOpenApi } from './tokens.js';
import { v1RefundsOpenApi } from './v1-refunds.js';
import { webhookEndpointsOpenApi } from './webhook-endpoints.js';

/** This module's own route: the document. */
export const openApiOpenApi: OpenApiRoute[] = [
  {
    method: 'get',
    path: '/openapi.json',
    tag: 'Meta',
    auth: 'none',
    summary: 'This document',
    response: 'the OpenAPI 3.1 document of every endpoint',
    responseSchema: () => z.record(z.string(), z.unknown()).describe('an OpenAPI 3.1 document'),
  },
];

/** Every documented route, in the document's order. A route module's list is added here when the module is mounted in app.ts. */
export const OPENAPI_ROUTES: readonly OpenApiRoute[] = [
  ...s2sOpenApi,
  ...openApiOpenApi,
  ...llmsTxtOpenApi,
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
  ...tokenScriptsOpenApi,
  ...dashboardOpenApi,
  ...merchantsOpenApi,
  ...signaturesOpenApi,
  ...journalOpenApi,
  ...mcpOpenApi,
  ...authenticatePagesOpenApi,
  ...checkoutPagesOpenApi,
  ...loginOpenApi,
  ...assetsOpenApi,
];

/**
 * The route that serves the document, built and encoded once, on first request, when the public
 * URL is known. The document is about 470 KB: serialising it again on every request and measuring
 * that string's UTF-8 length took about 8 ms of the one writer thread per GET.
 */
export function openApiRoutes(deps: AppDeps, routes: readonly OpenApiRoute[] = OPENAPI_ROUTES) {
  const app = new Hono<AppEnv>();
  let encoded: Uint8Array<ArrayBuffer> | undefined;
  app.get('/openapi.json', (c) => {
    encoded ??= new TextEncoder().encode(JSON.stringify(buildOpenApiDocument(routes, deps.services.publicUrl())));
    return c.body(encoded, 200, { 'content-type': 'application/json' });
  });
  return app;
}
