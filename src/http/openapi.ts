// GET /openapi.json: an OpenAPI 3.1 document assembled from the route lists each route module
// exports (OpenApiRoute[]). Request schemas are the same zod schemas that validate the
// requests, converted with z.toJSONSchema, so the document and the validation cannot drift.
// test/routes/openapi.test.ts compares the document with app.routes: an undocumented route fails.
import { Hono } from 'hono';
import * as z from 'zod';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors.js';
import { VERSION } from '../version.js';
import type { AppDeps, AppEnv } from './app-env.js';
import { controlRoute } from './control-route.js';
import { advanceSchema, authenticateSchema } from './control.js';
import { eventsOpenApi } from './events.js';
import { s2sEncryptedSchema, s2sPaymentSchema } from '../contracts/s2s-schema.js';
import { refundRequestSchema } from './refunds.js';
import { webhookEndpointsOpenApi } from './webhook-endpoints.js';
import { deliveryQuery, eventQuery, replayBody, retryBody } from './control-deliveries.js';
import { setSchema as faultSchema } from './control-faults.js';
import { scenarioDocumentSchema } from '../contracts/scenario-file.js';
import { snapshotSchema } from '../services/snapshot.js';
import { paymentsOpenApi } from './payments.js';
import { tokensOpenApi } from './tokens.js';
import { v1RefundsOpenApi } from './v1-refunds.js';
import { checkoutSessionsOpenApi } from './checkout-sessions.js';
import { disputesOpenApi } from './control-disputes.js';
import { dashboardOpenApi } from './control-dashboard.js';
import { authenticateResultView } from '../views/authentication.js';
import { clockAdvanceView, clockView, healthView } from '../views/clock.js';
import { deliveryDetailView, deliveryView, retryFailedView } from '../views/delivery.js';
import { controlEventDetailView, controlEventView } from '../views/event.js';
import { faultListView, faultsDeletedView, faultsSetView } from '../views/fault-rule.js';
import { listOf } from '../views/list.js';
import { controlTransactionView, s2sEncryptedPaymentView, s2sPaymentView, s2sRefundView, s2sStatusView } from '../views/s2s.js';
import { scenarioListView } from '../views/scenario-entry.js';
import { importView, merchantResetView, resetView } from '../views/state.js';
import { merchantsOpenApi } from './control-merchants.js';
import { signaturesOpenApi } from './control-signatures.js';
import { resetSchema } from './control-state.js';
import { PAGE_ROUTES } from './openapi-pages.js';
import { faultHeaderPattern } from '../contracts/patterns.js';
import { FAULT_STATUSES } from '../domain/api-faults.js';
import { webhookOperations } from './openapi-webhooks.js';
import { loadExamples, type OpenApiExamples } from './openapi-examples.js';
import { OPENAPI_TAGS } from './openapi-tags.js';
import type { OpenApiRoute } from './openapi-route.js';
import { Components, ERROR_SCHEMA } from './openapi-components.js';

/** Converts a zod schema to the JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) of its input. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/** The path in OpenAPI form: ':id' becomes '{id}'. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const SECURITY: Record<OpenApiRoute['auth'], Array<Record<string, string[]>>> = {
  bearer: [{ apiKey: [] }],
  control: [{}, { controlToken: [] }],
  terminal: [],
  none: [],
};

/** Codes any route of a given kind can answer with. */
function commonErrors(route: OpenApiRoute): ErrorCode[] {
  const codes: ErrorCode[] = ['internal_error', 'database_busy'];
  if (route.method === 'post' || route.method === 'patch' || route.method === 'put') {
    codes.push('body_too_large', 'body_incomplete', 'idempotency_key_reused', 'idempotency_key_in_progress', 'storage_full');
    if (route.body)
      codes.push(
        route.bodyType === 'application/x-www-form-urlencoded' ? 'unsupported_content_type' : 'invalid_json',
        'unsupported_content_type',
        'parameter_missing',
        'parameter_invalid',
      );
  }
  if (route.query) codes.push('parameter_invalid');
  // Strict schemas refuse fields they do not know.
  if ([route.body, route.query].some((schema) => schema && jsonSchemaOf(schema).additionalProperties === false))
    codes.push('parameter_unknown');
  if (route.auth === 'bearer') codes.push('authentication_required', 'invalid_credentials', 'live_key_rejected');
  if (route.auth === 'control') codes.push('control_forbidden');
  // The control guard (middleware/control-guard.ts) answers these on every /_sandbox route.
  if (route.path.startsWith('/_sandbox')) codes.push('host_not_allowed');
  if (route.path.startsWith('/_sandbox') && route.method !== 'get') codes.push('cross_site_refused', 'unsupported_content_type');
  // A path id, or a list's starting_after cursor, that names nothing.
  if (route.path.includes(':') || (route.query && 'starting_after' in (jsonSchemaOf(route.query).properties as object)))
    codes.push('resource_missing');
  // X-Sandbox-Fault (middleware/api-faults.ts): a malformed header is a 400; status= answers these.
  if (/^\/(api|v1)\//.test(route.path))
    codes.push(
      'parameter_invalid',
      'injected_rate_limit',
      'injected_server_error',
      'injected_bad_gateway',
      'injected_unavailable',
      'injected_gateway_timeout',
    );
  return codes;
}

function queryParameters(schema: z.ZodType, components: Components): unknown[] {
  const json = components.of(schema, 'input') as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: (json.required ?? []).includes(name),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: property,
  }));
}

const LOCATION = { Location: { description: 'where to go next', schema: { type: 'string', format: 'uri-reference' } } };

/** The success answer's content: the response schema as JSON (with its recorded example), or text of the route's media type. */
function successContent(route: OpenApiRoute, components: Components, example: unknown): Record<string, unknown> | undefined {
  if (route.responseSchema)
    return { 'application/json': { schema: components.of(route.responseSchema, 'output'), ...(example === undefined ? {} : { example }) } };
  if (route.responseType) return { [route.responseType]: { schema: { type: 'string' } } };
  return undefined;
}

const HTML_ERROR = { 'text/html': { schema: { type: 'string' } } };

function operation(route: OpenApiRoute, components: Components, examples: OpenApiExamples): Record<string, unknown> {
  const example = examples.operations[`${route.method} ${openApiPath(route.path)}`] ?? {};
  const parameters: unknown[] = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (route.query) parameters.push(...queryParameters(route.query, components));
  if (route.method === 'post' && (route.path.startsWith('/api/') || route.path.startsWith('/v1/'))) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        '1-255 printable ASCII characters, such as a UUID; the same key and body within 24 h replays the first answer (see docs/idempotency.md)',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[ -~]{1,255}$' },
    });
  }
  if (/^\/(api|v1)\//.test(route.path)) {
    parameters.push({
      name: 'X-Sandbox-Fault',
      in: 'header',
      required: false,
      description: `inject an API fault: comma-separated latency=DURATION (more than 0, at most 60s), status=${FAULT_STATUSES.join('|')}, reset, timeout, lost-answer; each fault once, and at most one of status, reset, timeout, lost-answer (see docs/api-faults.md)`,
      schema: { type: 'string', pattern: faultHeaderPattern(FAULT_STATUSES) },
    });
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...commonErrors(route), ...(route.errors ?? [])])) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const success = route.status ?? 200;
  const redirects: Record<number, string> = { ...route.redirects };
  // A 3xx success is a redirect (POST, then GET the next page).
  if (success >= 300 && success < 400) redirects[success] ??= route.response;
  // With --control-token, a browser's GET without the cookie is sent to the sign-in page.
  if (route.auth === 'control' && route.method === 'get')
    redirects[303] ??= 'a browser (Accept: text/html) without the control cookie: the sign-in page /_sandbox/login';
  const responses: Record<string, Record<string, unknown>> = {};
  if (!(success in redirects)) {
    const content = successContent(route, components, example.response);
    responses[String(success)] = { description: route.response, ...(content ? { content } : {}) };
  }
  for (const [status, where] of Object.entries(redirects)) responses[status] = { description: where, headers: LOCATION };
  for (const [status, codes] of byStatus) {
    responses[String(status)] = {
      description: `error: ${codes.join(', ')}${route.htmlErrors ? ' (an HTML page saying what went wrong and what to do)' : ''}`,
      content: route.htmlErrors ? HTML_ERROR : { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  for (const [status, what] of Object.entries(route.htmlAnswers ?? {})) {
    const json = responses[status];
    responses[status] = {
      description: json ? `${what}; ${json.description as string}` : what,
      content: { 'text/html': { schema: { type: 'string' } }, ...((json?.content as object | undefined) ?? {}) },
    };
  }
  const sorted = Object.fromEntries(Object.entries(responses).sort((a, b) => Number(a[0]) - Number(b[0])));
  return {
    operationId: `${route.method}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, ch: string | undefined) => (ch ?? '').toUpperCase())}`,
    summary: route.summary,
    tags: [route.tag],
    security: SECURITY[route.auth],
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: !route.bodyOptional,
            content: {
              [route.bodyType ?? 'application/json']: {
                schema: components.of(route.body, 'input'),
                ...(example.request === undefined ? {} : { example: example.request }),
              },
            },
          },
        }
      : {}),
    ...(route.encryptedBody ? { 'x-encrypted-parameters': jsonSchemaOf(route.encryptedBody) } : {}),
    responses: sorted,
  };
}

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

/** Routes of s2s.ts and control.ts, which export no list of their own, and this document's own route. */
const FOUNDATION_ROUTES: OpenApiRoute[] = [
  {
    method: 'post',
    path: '/api/s2s',
    tag: 'S2S',
    auth: 'terminal',
    summary: 'Create a server-to-server card or alternative payment (spec §4.1)',
    body: s2sPaymentSchema,
    response: 'the spec §2.2 fields: transID, order_status, status, authurl when the customer must authenticate, authstatus, ...',
    responseSchema: s2sPaymentView,
    errors: ['invalid_credentials', 'reference_in_use'],
  },
  {
    method: 'get',
    path: '/api/s2s/status/:token',
    tag: 'S2S',
    auth: 'none',
    summary: 'The authstatus URL: the transaction status as it is now',
    response: 'transID, reference, order_status, status, response, bill_amt, bill_currency, tdate',
    responseSchema: s2sStatusView,
  },
  {
    method: 'get',
    path: '/openapi.json',
    tag: 'Meta',
    auth: 'none',
    summary: 'This document',
    response: 'the OpenAPI 3.1 document of every endpoint',
    responseSchema: z.record(z.string(), z.unknown()).describe('an OpenAPI 3.1 document'),
  },
  {
    method: 'get',
    path: '/_sandbox/health',
    tag: 'Sandbox control',
    auth: 'control',
    summary: 'Liveness, version and the sandbox clock',
    response: '{status: "ok", version, time}',
    responseSchema: healthView,
  },
  {
    method: 'get',
    path: '/_sandbox/transactions/:transID',
    tag: 'Sandbox control',
    auth: 'control',
    summary: 'Everything about one S2S transaction, any merchant',
    response: 'the status fields plus terNO, merchant_id, URLs, refunded_amt and the authentication state',
    responseSchema: controlTransactionView,
  },
  {
    method: 'post',
    path: '/_sandbox/transactions/:transID/authenticate',
    tag: 'Sandbox control',
    auth: 'control',
    summary: 'Complete the customer authentication of an S2S transID or a /v1/ payment id (pay_...) without a browser',
    body: authenticateSchema,
    response: 'the transaction status (or the /v1/ payment) after the outcome, authentication and redirect_url',
    responseSchema: authenticateResultView,
    errors: ['resource_missing', 'invalid_state'],
  },
  {
    method: 'post',
    path: '/_sandbox/clock/advance',
    tag: 'Sandbox control',
    auth: 'control',
    summary: 'Move the sandbox clock forward; due expiries, jobs and retries run now',
    body: advanceSchema,
    response: '{now, offset_ms, offset, jobs_run}',
    responseSchema: clockAdvanceView,
  },
  {
    method: 'get',
    path: '/_sandbox/clock',
    tag: 'Sandbox control',
    auth: 'control',
    summary: 'The sandbox time and how far it is ahead of the wall clock (kept in the database across restarts)',
    response: '{now, offset_ms, offset}',
    responseSchema: clockView,
  },
];

// The encrypted endpoint reads one form field itself; what is inside is validated by s2sEncryptedSchema.
const encryptedForm = z.object({
  encrypted_data: z
    .string()
    .min(1)
    .describe('base64(base64(AES-256-CBC of the payment query string)) followed by the terminal public_key (docs/encryption.md)'),
});

/** The routes of s2s-encrypted.ts and refunds.ts, which export no list. */
const S2S_ROUTES: OpenApiRoute[] = [
  {
    method: 'post',
    path: '/api/s2s/encrypt',
    tag: 'S2S',
    auth: 'terminal',
    summary: 'Create an S2S payment from encrypted parameters (spec §4.2); x-encrypted-parameters are the fields inside',
    body: encryptedForm,
    bodyType: 'application/x-www-form-urlencoded',
    encryptedBody: s2sEncryptedSchema,
    response: 'the spec §2.3 fields: authurl, transID, reference, order_status, status, bill_amt, bill_currency, response',
    responseSchema: s2sEncryptedPaymentView,
    errors: ['decryption_failed', 'invalid_credentials', 'reference_in_use'],
  },
  {
    method: 'post',
    path: '/api/transactions/refund-request',
    tag: 'S2S',
    auth: 'terminal',
    summary: 'Refund all or part of an approved S2S transaction (spec §4.3)',
    body: refundRequestSchema,
    response: 'the spec §2.4 fields, order_status 8 Request Processed',
    responseSchema: s2sRefundView,
    errors: ['invalid_credentials', 'resource_missing', 'amount_too_large', 'not_refundable'],
  },
];

/** Control routes of the webhook workbench (deliveries, events, faults, stream), the scenario queue and the whole-state routes, whose modules export no list. */
const CONTROL_ROUTES: OpenApiRoute[] = [
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
  controlRoute('get', '/faults', 'The fault injection rules and their seed', 'the rules in the list envelope, with the seed', {
    responseSchema: faultListView,
  }),
  controlRoute('post', '/faults', 'Add a fault injection rule (and/or reseed)', 'the rules added and the full list', {
    body: faultSchema,
    status: 201,
    responseSchema: faultsSetView,
    errors: ['resource_missing'],
  }),
  controlRoute('delete', '/faults', 'Remove every fault injection rule', 'how many rules were removed', {
    responseSchema: faultsDeletedView,
  }),
  controlRoute('delete', '/faults/:id', 'Remove one fault injection rule', 'how many rules were removed', {
    responseSchema: faultsDeletedView,
  }),
  controlRoute(
    'get',
    '/stream',
    'Server-sent events of sandbox activity (requests, events, delivery attempts)',
    'a text/event-stream that stays open; each item is `event: <kind>` with JSON data {kind, at, ...}: event.created carries {id, event, resource_id}, naming the event `event` as every control event does',
    { responseType: 'text/event-stream' },
  ),
  controlRoute('get', '/scenarios', 'The scenario queue', 'the queued scenario entries in the list envelope', {
    responseSchema: scenarioListView,
  }),
  controlRoute('post', '/scenarios', 'Append a scenario document to the queue', 'the entries added and the queue', {
    body: scenarioDocumentSchema,
    status: 201,
    responseSchema: scenarioListView.extend({ added: z.number().int() }),
    errors: ['resource_missing'],
  }),
  controlRoute('delete', '/scenarios', 'Empty the scenario queue', 'how many entries were removed, and the empty queue', {
    responseSchema: scenarioListView.extend({ removed: z.number().int() }),
  }),
  controlRoute(
    'post',
    '/reset',
    'Empty every table except the seeded credentials (reseeded; created merchants go) and reload --scenario; with {"merchant": id}, empty only that merchant\'s state',
    'how many rows each table kept; with merchant, how many rows of each table went',
    { body: resetSchema, bodyOptional: true, responseSchema: z.union([resetView, merchantResetView]), errors: ['resource_missing'] },
  ),
  controlRoute('get', '/export', 'The whole state as a snapshot document', 'the snapshot (also a download)', {
    responseSchema: z.record(z.string(), z.unknown()).describe('the snapshot document POST /_sandbox/import takes'),
  }),
  controlRoute(
    'post',
    '/import',
    'Replace the whole state with a snapshot document (up to 256 MiB) in one transaction',
    'how many rows each table holds now',
    { body: snapshotSchema, responseSchema: importView },
  ),
];

/** Every documented route. A route module's list is added here when the module is mounted in app.ts. */
export const OPENAPI_ROUTES: readonly OpenApiRoute[] = [
  ...FOUNDATION_ROUTES,
  ...S2S_ROUTES,
  ...CONTROL_ROUTES,
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
  ...PAGE_ROUTES,
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
