// GET /openapi.json: an OpenAPI 3.1 document assembled from the route lists each route module
// exports (OpenApiRoute[]). Request schemas are the same zod schemas that validate the
// requests, converted with z.toJSONSchema, so the document and the validation cannot drift.
// test/routes/openapi.test.ts compares the document with app.routes: an undocumented route fails.
import { Hono } from 'hono';
import * as z from 'zod';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors.js';
import { VERSION } from '../version.js';
import type { AppDeps, AppEnv } from './app.js';
import { advanceSchema, authenticateSchema } from './control.js';
import { eventsOpenApi } from './events.js';
import { s2sEncryptedSchema, s2sPaymentSchema } from '../contracts/s2s-schema.js';
import { refundRequestSchema } from './refunds.js';
import { webhookEndpointsOpenApi } from './webhook-endpoints.js';
import { deliveryQuery, eventQuery, replayBody, retryBody } from './control-deliveries.js';
import { setSchema as faultSchema } from './control-faults.js';
import { scenarioDocumentSchema } from '../services/scenarios.js';
import { snapshotSchema } from '../services/snapshot.js';
import { paymentsOpenApi } from './payments.js';
import { tokensOpenApi } from './tokens.js';
import { v1RefundsOpenApi } from './v1-refunds.js';
import { checkoutSessionsOpenApi } from './checkout-sessions.js';
import { disputesOpenApi } from './control-disputes.js';
import { dashboardOpenApi } from './control-dashboard.js';
import { merchantsOpenApi } from './control-merchants.js';
import { resetSchema } from './control-state.js';

/**
 * One documented route. Route modules export a list of these (e.g. `export const paymentsOpenApi:
 * OpenApiRoute[]`), and openapi.ts adds the list to OPENAPI_ROUTES.
 */
export interface OpenApiRoute {
  /** Lowercase HTTP method. */
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The full path as mounted, Hono style: '/v1/payments/:id' (openapi.ts turns :id into {id}). */
  path: string;
  /** One line: what the route does. */
  summary: string;
  /** Group in the document, e.g. 'S2S', 'Payments', 'Webhook endpoints', 'Sandbox control'. */
  tag: string;
  /** Which credential the route takes. */
  auth: 'bearer' | 'terminal' | 'control' | 'none';
  /** The zod schema that validates the body, when there is one. */
  body?: z.ZodType;
  /** True when the body may be left out entirely. */
  bodyOptional?: boolean;
  /** The schema of the parameters inside an encrypted body (shown as x-encrypted-parameters). */
  encryptedBody?: z.ZodType;
  /** The body media type; application/json unless said otherwise. */
  bodyType?: 'application/json' | 'application/x-www-form-urlencoded';
  /** The zod schema that validates the query string (lists, filters). */
  query?: z.ZodType;
  /** The success status; 200 unless said otherwise. */
  status?: number;
  /** What the success answer holds. */
  response: string;
  /** The zod schema of the success body, when one exists. */
  responseSchema?: z.ZodType;
  /** Error codes this route can answer with, beyond the ones every route can give. */
  errors?: ErrorCode[];
}

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

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message', 'request_id'],
      properties: {
        type: { type: 'string', enum: [...new Set(Object.values(ERROR_CATALOGUE).map((e) => e.type))] },
        code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
        message: { type: 'string', description: 'names the field and says how to fix it' },
        param: { type: 'string', description: 'the offending field, when there is one' },
        request_id: { type: 'string', description: 'req_..., also in the X-Request-Id header' },
      },
    },
  },
};

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
    codes.push('body_too_large', 'idempotency_key_reused', 'idempotency_key_in_progress', 'storage_full');
    if (route.body) codes.push(route.bodyType === 'application/x-www-form-urlencoded' ? 'unsupported_content_type' : 'invalid_json', 'unsupported_content_type', 'parameter_missing', 'parameter_invalid');
  }
  if (route.query) codes.push('parameter_invalid');
  // Strict schemas refuse fields they do not know.
  if ([route.body, route.query].some((schema) => schema && jsonSchemaOf(schema).additionalProperties === false)) codes.push('parameter_unknown');
  if (route.auth === 'bearer') codes.push('authentication_required', 'invalid_credentials', 'live_key_rejected');
  if (route.auth === 'control') codes.push('control_forbidden');
  // The control guard (middleware/control-guard.ts) answers these on every /_sandbox route.
  if (route.path.startsWith('/_sandbox')) codes.push('host_not_allowed');
  if (route.path.startsWith('/_sandbox') && route.method !== 'get') codes.push('cross_site_refused', 'unsupported_content_type');
  if (route.path.includes(':')) codes.push('resource_missing');
  return codes;
}

function queryParameters(schema: z.ZodType): unknown[] {
  const json = jsonSchemaOf(schema) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: (json.required ?? []).includes(name),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: property,
  }));
}

function operation(route: OpenApiRoute): Record<string, unknown> {
  const parameters: unknown[] = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  if (route.query) parameters.push(...queryParameters(route.query));
  if (route.method === 'post' && (route.path.startsWith('/api/') || route.path.startsWith('/v1/'))) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: '1-255 printable characters; the same key and body within 24 h replays the first answer (see docs/idempotency.md)',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...commonErrors(route), ...(route.errors ?? [])])) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {
    [String(route.status ?? 200)]: {
      description: route.response,
      ...(route.responseSchema ? { content: { 'application/json': { schema: jsonSchemaOf(route.responseSchema) } } } : {}),
    },
  };
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    responses[String(status)] = { description: `error: ${codes.join(', ')}`, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return {
    operationId: `${route.method}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, ch: string | undefined) => (ch ?? '').toUpperCase())}`,
    summary: route.summary,
    tags: [route.tag],
    security: SECURITY[route.auth],
    ...(parameters.length ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: !route.bodyOptional, content: { [route.bodyType ?? 'application/json']: { schema: jsonSchemaOf(route.body) } } } } : {}),
    ...(route.encryptedBody ? { 'x-encrypted-parameters': jsonSchemaOf(route.encryptedBody) } : {}),
    responses,
  };
}

/** Assembles the OpenAPI 3.1 document from route lists. */
export function buildOpenApiDocument(routes: readonly OpenApiRoute[], serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'paysandbox', version: VERSION, description: 'A local, stateful sandbox of the payment gateway. Errors use one body shape (components.schemas.Error).' },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'an sk_test_ API key, e.g. sk_test_sandbox' },
        controlToken: { type: 'http', scheme: 'bearer', description: 'the --control-token value; not needed from loopback when none is set' },
      },
    },
  };
}

/** Routes of s2s.ts and control.ts, which export no list of their own, and this document's own route. */
const FOUNDATION_ROUTES: OpenApiRoute[] = [
  { method: 'post', path: '/api/s2s', tag: 'S2S', auth: 'terminal', summary: 'Create a server-to-server card or alternative payment (spec §4.1)', body: s2sPaymentSchema, response: 'the spec §2.2 fields: transID, order_status, status, authurl when the customer must authenticate, authstatus, ...', errors: ['invalid_credentials', 'reference_in_use'] },
  { method: 'get', path: '/api/s2s/status/:token', tag: 'S2S', auth: 'none', summary: 'The authstatus URL: the transaction status as it is now', response: 'transID, reference, order_status, status, response, bill_amt, bill_currency, tdate' },
  { method: 'get', path: '/openapi.json', tag: 'Meta', auth: 'none', summary: 'This document', response: 'the OpenAPI 3.1 document of every endpoint' },
  { method: 'get', path: '/_sandbox/login', tag: 'Sandbox control', auth: 'none', summary: 'Dashboard sign-in form (only needed with --control-token)', response: 'an HTML form' },
  { method: 'post', path: '/_sandbox/login', tag: 'Sandbox control', auth: 'none', summary: 'Trade the control token (form field token) for an HttpOnly cookie scoped to /_sandbox', response: '303 to the dashboard, or 401 with the form' },
  { method: 'get', path: '/_sandbox/health', tag: 'Sandbox control', auth: 'control', summary: 'Liveness, version and the sandbox clock', response: '{status: "ok", version, time}' },
  { method: 'get', path: '/_sandbox/transactions/:transID', tag: 'Sandbox control', auth: 'control', summary: 'Everything about one S2S transaction, any merchant', response: 'the status fields plus terNO, merchant_id, URLs, refunded_amt and the authentication state' },
  { method: 'post', path: '/_sandbox/transactions/:transID/authenticate', tag: 'Sandbox control', auth: 'control', summary: 'Complete the customer authentication of an S2S transID or a /v1/ payment id (pay_...) without a browser', body: authenticateSchema, response: 'the transaction status (or the /v1/ payment) after the outcome, authentication and redirect_url', errors: ['resource_missing', 'invalid_state'] },
  { method: 'post', path: '/_sandbox/clock/advance', tag: 'Sandbox control', auth: 'control', summary: 'Move the sandbox clock forward; due expiries, jobs and retries run now', body: advanceSchema, response: '{now, offset_ms, offset, jobs_run}' },
  { method: 'get', path: '/_sandbox/clock', tag: 'Sandbox control', auth: 'control', summary: 'The sandbox time and how far it is ahead of the wall clock (kept in the database across restarts)', response: '{now, offset_ms, offset}' },
];

const control = (method: OpenApiRoute['method'], path: string, summary: string, response: string, extra: Partial<OpenApiRoute> = {}): OpenApiRoute => ({
  method,
  path: `/_sandbox${path}`,
  summary,
  response,
  tag: 'Sandbox control',
  auth: 'control',
  ...extra,
});

// The encrypted endpoint reads one form field itself; what is inside is validated by s2sEncryptedSchema.
const encryptedForm = z.object({
  encrypted_data: z.string().min(1).describe('base64(base64(AES-256-CBC of the payment query string)) followed by the terminal public_key (docs/encryption.md)'),
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
    errors: ['invalid_credentials', 'resource_missing', 'amount_too_large', 'not_refundable'],
  },
];

/** Control routes of the webhook workbench (deliveries, events, faults, stream), the scenario queue and the whole-state routes, whose modules export no list. */
const CONTROL_ROUTES: OpenApiRoute[] = [
  control('get', '/deliveries', 'List webhook deliveries, newest first, with filters', 'the deliveries with status, attempts and last result', { query: deliveryQuery }),
  control('post', '/deliveries/retry-failed', 'Put failed deliveries (created since a time, or all) back in the queue, due now', 'the deliveries requeued', { body: retryBody, bodyOptional: true }),
  control('get', '/deliveries/:id', 'One delivery with every attempt (request and response headers and bodies, latency, error kind)', 'the delivery and its attempts'),
  control('post', '/deliveries/:id/replay', 'Send a delivery again now, once, optionally to another URL', 'the new manual delivery', { body: replayBody, bodyOptional: true, status: 201 }),
  control('get', '/events', 'List events of every merchant, newest first, with filters', 'the events', { query: eventQuery }),
  control('get', '/events/:id', 'One event with its deliveries', 'the event and its deliveries'),
  control('post', '/events/:id/replay', 'Deliver an event again now, once, optionally to another URL', 'the new manual delivery', { body: replayBody, bodyOptional: true, status: 201 }),
  control('get', '/faults', 'The fault injection rules and their seed', 'the seed and the rules'),
  control('post', '/faults', 'Add a fault injection rule (and/or reseed)', 'the rules added and the full list', { body: faultSchema, status: 201 }),
  control('delete', '/faults', 'Remove every fault injection rule', 'how many rules were removed'),
  control('delete', '/faults/:id', 'Remove one fault injection rule', 'how many rules were removed'),
  control('get', '/stream', 'Server-sent events of sandbox activity (requests, events, delivery attempts)', 'a text/event-stream that stays open'),
  control('get', '/scenarios', 'The scenario queue', 'the queued scenario entries'),
  control('post', '/scenarios', 'Append a scenario document to the queue', 'the entries added and the queue', { body: scenarioDocumentSchema, status: 201 }),
  control('delete', '/scenarios', 'Empty the scenario queue', 'how many entries were removed'),
  control('post', '/reset', 'Empty every table except the seeded credentials (reseeded; created merchants go) and reload --scenario; with {"merchant": id}, empty only that merchant\'s state', 'how many rows each table kept; with merchant, how many rows of each table went', { body: resetSchema, bodyOptional: true }),
  control('get', '/export', 'The whole state as a snapshot document', 'the snapshot (also a download)'),
  control('post', '/import', 'Replace the whole state with a snapshot document (up to 256 MiB) in one transaction', 'how many rows each table holds now', { body: snapshotSchema }),
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
