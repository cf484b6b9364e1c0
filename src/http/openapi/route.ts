// What a route module says about each of its routes for GET /openapi.json: the OpenApiRoute it
// exports next to the routes themselves (http/openapi/document.ts turns the lists into the document).
import type { ErrorCode } from '../../errors.js';
import type { LazySchema } from '../../lazy-schema.js';

/**
 * One documented route. Each route module exports the list of the routes it defines (e.g. `export
 * const paymentsOpenApi: OpenApiRoute[]`), and http/openapi/document.ts assembles the document from the lists.
 */
export interface OpenApiRoute {
  /** Lowercase HTTP method. */
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The full path as mounted, Hono style: '/v1/payments/:id' (http/openapi/document.ts turns :id into {id}). */
  path: string;
  /** One line: what the route does. */
  summary: string;
  /** Group in the document, e.g. 'S2S', 'Payments', 'Webhook endpoints', 'Sandbox control'. */
  tag: string;
  /** Which credential the route takes. */
  auth: 'bearer' | 'terminal' | 'control' | 'none';
  /** The schema that validates the body, when there is one (src/lazy-schema.ts: built on first use, as every schema below). */
  body?: LazySchema;
  /** True when the body may be left out entirely. */
  bodyOptional?: boolean;
  /** The schema of the parameters inside an encrypted body (shown as x-encrypted-parameters). */
  encryptedBody?: LazySchema;
  /** The body media type; application/json unless said otherwise. */
  bodyType?: 'application/json' | 'application/x-www-form-urlencoded';
  /** The schema that validates the query string (lists, filters). */
  query?: LazySchema;
  /** The success status; 200 unless said otherwise. */
  status?: number;
  /** What the success answer holds. */
  response: string;
  /** The schema of the success body, when one exists. */
  responseSchema?: LazySchema;
  /** The success answer's media type: application/json (with responseSchema), text/html for pages, text/event-stream... */
  responseType?: string;
  /** Redirects the route answers besides its success (status -> where to), each with a Location header. */
  redirects?: Record<number, string>;
  /** HTML pages the route answers at an error status (status -> what the page says), besides the JSON error body. */
  htmlAnswers?: Record<number, string>;
  /** A customer page: its errors are HTML pages (http/on-error.ts), not the JSON error body. */
  htmlErrors?: boolean;
  /** Error codes this route can answer with, beyond the ones every route can give. */
  errors?: ErrorCode[];
}

/** The path in OpenAPI form: ':id' becomes '{id}'. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
