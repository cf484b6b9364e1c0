// One route's operation object in GET /openapi.json: its parameters (path, query, the Idempotency-Key
// and X-Sandbox-Fault headers), request body, success answer (with its recorded example), redirects,
// HTML answers and every error code it can give, grouped by status.
import type * as z from 'zod';
import { ERROR_CATALOGUE, type ErrorCode } from '../../errors.js';
import { faultHeaderPattern } from '../../contracts/patterns.js';
import { FAULT_STATUSES } from '../../domain/api-faults.js';
import { type Components, jsonSchemaOf } from './components.js';
import type { OpenApiExamples } from './examples.js';
import { type OpenApiRoute, openApiPath } from './route.js';

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
  if ([route.body, route.query].some((schema) => schema && jsonSchemaOf(schema()).additionalProperties === false))
    codes.push('parameter_unknown');
  if (route.auth === 'bearer') codes.push('authentication_required', 'invalid_credentials', 'live_key_rejected');
  if (route.auth === 'control') codes.push('control_forbidden');
  // The control guard (middleware/control-guard.ts) answers these on every /_sandbox route.
  if (route.path.startsWith('/_sandbox')) codes.push('host_not_allowed');
  if (route.path.startsWith('/_sandbox') && route.method !== 'get') codes.push('cross_site_refused', 'unsupported_content_type');
  // A path id, or a list's starting_after cursor, that names nothing.
  if (route.path.includes(':') || (route.query && 'starting_after' in (jsonSchemaOf(route.query()).properties as object)))
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

/** A customer page's errors are HTML pages (pages/error-page.tsx), not the JSON error body. */
const HTML_ERROR = { 'text/html': { schema: { type: 'string' } } };

const LOCATION = { Location: { description: 'where to go next', schema: { type: 'string', format: 'uri-reference' } } };

/** The success answer's content: the response schema as JSON (with its recorded example), or text of the route's media type. */
function successContent(route: OpenApiRoute, components: Components, example: unknown): Record<string, unknown> | undefined {
  if (route.responseSchema)
    return {
      'application/json': { schema: components.of(route.responseSchema(), 'output'), ...(example === undefined ? {} : { example }) },
    };
  if (route.responseType) return { [route.responseType]: { schema: { type: 'string' } } };
  return undefined;
}

/** The path parameters, the query's, and the headers of /api and /v1 routes. */
function parameters(route: OpenApiRoute, components: Components): unknown[] {
  const list: unknown[] = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (route.query) list.push(...queryParameters(route.query(), components));
  if (route.method === 'post' && (route.path.startsWith('/api/') || route.path.startsWith('/v1/'))) {
    list.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        '1-255 printable ASCII characters, such as a UUID; the same key and body within 24 h replays the first answer (see docs/idempotency.md)',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[ -~]{1,255}$' },
    });
  }
  if (/^\/(api|v1)\//.test(route.path)) {
    list.push({
      name: 'X-Sandbox-Fault',
      in: 'header',
      required: false,
      description: `inject an API fault: comma-separated latency=DURATION (more than 0, at most 60s), status=${FAULT_STATUSES.join('|')}, reset, timeout, lost-answer; each fault once, and at most one of status, reset, timeout, lost-answer (see docs/api-faults.md)`,
      schema: { type: 'string', pattern: faultHeaderPattern(FAULT_STATUSES) },
    });
  }
  return list;
}

/** The redirects a route answers: its own, a 3xx success, and the control sign-in redirect of browser GETs. */
function redirectsOf(route: OpenApiRoute, success: number): Record<number, string> {
  const redirects: Record<number, string> = { ...route.redirects };
  // A 3xx success is a redirect (POST, then GET the next page).
  if (success >= 300 && success < 400) redirects[success] ??= route.response;
  // With --control-token, a browser's GET without the cookie is sent to the sign-in page.
  if (route.auth === 'control' && route.method === 'get')
    redirects[303] ??= 'a browser (Accept: text/html) without the control cookie: the sign-in page /_sandbox/login';
  return redirects;
}

/** Every answer by status, in status order: success (or redirect), errors, and the HTML pages. */
function responses(route: OpenApiRoute, components: Components, example: unknown): Record<string, Record<string, unknown>> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...commonErrors(route), ...(route.errors ?? [])])) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const success = route.status ?? 200;
  const redirects = redirectsOf(route, success);
  const answers: Record<string, Record<string, unknown>> = {};
  if (!(success in redirects)) {
    const content = successContent(route, components, example);
    answers[String(success)] = { description: route.response, ...(content ? { content } : {}) };
  }
  for (const [status, where] of Object.entries(redirects)) answers[status] = { description: where, headers: LOCATION };
  for (const [status, codes] of byStatus) {
    answers[String(status)] = {
      description: `error: ${codes.join(', ')}${route.htmlErrors ? ' (an HTML page saying what went wrong and what to do)' : ''}`,
      content: route.htmlErrors ? HTML_ERROR : { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  for (const [status, what] of Object.entries(route.htmlAnswers ?? {})) {
    const json = answers[status];
    answers[status] = {
      description: json ? `${what}; ${json.description as string}` : what,
      content: { 'text/html': { schema: { type: 'string' } }, ...((json?.content as object | undefined) ?? {}) },
    };
  }
  return Object.fromEntries(Object.entries(answers).sort((a, b) => Number(a[0]) - Number(b[0])));
}

/** The requestBody of a route that takes one, with its recorded example. */
function requestBody(route: OpenApiRoute, body: NonNullable<OpenApiRoute['body']>, components: Components, example: unknown) {
  return {
    required: !route.bodyOptional,
    content: {
      [route.bodyType ?? 'application/json']: {
        schema: components.of(body(), 'input'),
        ...(example === undefined ? {} : { example }),
      },
    },
  };
}

/** The operation object of one route; the schemas it meets are added to `components`. */
export function operation(route: OpenApiRoute, components: Components, examples: OpenApiExamples): Record<string, unknown> {
  const example = examples.operations[`${route.method} ${openApiPath(route.path)}`] ?? {};
  // In this order (query, answer, body), as components.schemas lists the schemas in the order met.
  const params = parameters(route, components);
  const answers = responses(route, components, example.response);
  return {
    operationId: `${route.method}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, ch: string | undefined) => (ch ?? '').toUpperCase())}`,
    summary: route.summary,
    tags: [route.tag],
    security: SECURITY[route.auth],
    ...(params.length ? { parameters: params } : {}),
    ...(route.body ? { requestBody: requestBody(route, route.body, components, example.request) } : {}),
    ...(route.encryptedBody ? { 'x-encrypted-parameters': jsonSchemaOf(route.encryptedBody()) } : {}),
    responses: answers,
  };
}
