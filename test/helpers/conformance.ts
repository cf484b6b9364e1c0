// Conformance of every answer the suite reads to the OpenAPI document: http.ts hands each answer to
// checkAnswer(), which finds the operation (method + path template), the status and the media type
// in the document and validates the body with ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1)
// against the document's own schemas. An answer the document does not describe fails the test
// that received it, naming the route, the status and ajv's errors. Webhook bodies the suite's fake
// merchants receive are checked the same way against the document's `webhooks` (checkWebhook).
import { appendFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { afterAll } from 'vitest';
import { buildOpenApiDocument } from '../../src/http/openapi/document.js';
import { OPENAPI_ROUTES } from '../../src/http/openapi-routes.js';
import { UNKNOWN_EVENT_TYPE } from '../../src/webhooks/audit/audit.js';

/** One answer as a test read it. */
export interface Answer {
  method: string;
  /** The path asked for, with its query string. */
  path: string;
  status: number;
  contentType: string | null;
  text: string;
}

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/** A validator over one OpenAPI document. */
export class Conformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly operations: Operation[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();
  /** How many answers were validated against a schema or media type so far. */
  checked = 0;
  /** How many answers matched no documented operation and were not checked. */
  unmatched = 0;

  private readonly webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: unknown }> } } }>;

  constructor(document: {
    paths: Record<string, Record<string, { responses: Operation['responses'] }>>;
    components: { schemas: Record<string, unknown> };
    webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: unknown }> } } }>;
  }) {
    this.webhooks = document.webhooks;
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    // The components under the document's own address, so "#/components/schemas/X" resolves.
    this.ajv.addSchema({ $id: 'openapi.json', components: document.components }, 'openapi.json');
    for (const [template, ops] of Object.entries(document.paths)) {
      const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, op] of Object.entries(ops))
        this.operations.push({ method: method.toUpperCase(), template, pattern, responses: op.responses });
    }
  }

  /** Problems with `answer` (empty when the document describes it); undefined when no operation is documented for it. */
  problems(answer: Answer): string[] | undefined {
    // The dashboard is documented as /_sandbox (no trailing slash) and served at /_sandbox/.
    const path = decodeURI(answer.path.split('?')[0]!).replace(/^\/_sandbox\/$/, '/_sandbox');
    const matches = this.operations.filter((op) => op.pattern.test(path));
    const op =
      matches.find((candidate) => candidate.method === answer.method) ??
      (answer.method === 'HEAD' ? matches.find((c) => c.method === 'GET') : undefined);
    if (!op) {
      // Unknown paths and methods (404 route_not_found, 405 method_not_allowed) still answer the Error body.
      // (Other servers' paths, such as a fake merchant's, are not the sandbox's to check.)
      const sandboxPath = matches.length > 0 || /^\/(api|v1|_sandbox)\b/.test(path);
      if ((answer.status === 404 || answer.status === 405) && answer.contentType?.includes('json') && sandboxPath)
        return this.check('Error', { $ref: 'openapi.json#/components/schemas/Error' }, answer);
      this.unmatched++;
      return undefined;
    }
    const route = `${answer.method} ${op.template}`;
    const response = op.responses[String(answer.status)];
    if (!response)
      return [`${route} answered ${answer.status}, a status the document does not list (it lists ${Object.keys(op.responses).join(', ')})`];
    if (answer.method === 'HEAD' || (answer.text === '' && !response.content)) {
      this.checked++;
      return [];
    }
    const type = (answer.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const content = response.content?.[type];
    if (!content)
      return [
        `${route} answered ${answer.status} as ${type || 'no content type'}, which the document does not list (it lists ${Object.keys(response.content ?? {}).join(', ') || 'no body'})`,
      ];
    if (!type.endsWith('json')) {
      this.checked++;
      return [];
    }
    return this.check(`${route} ${answer.status}`, content.schema, answer);
  }

  /** Problems with a webhook body the sandbox sent (empty when the document's `webhooks` describe it). */
  webhookProblems(contentType: string, text: string): string[] {
    const type = contentType.split(';')[0]!.trim().toLowerCase();
    if (type === 'application/x-www-form-urlencoded') {
      const schema = this.webhooks['s2s.transaction']?.post.requestBody.content[type]?.schema;
      return this.validateBody('webhook s2s.transaction', schema, Object.fromEntries(new URLSearchParams(text)));
    }
    if (type !== 'application/json') return [`a webhook sent as ${type || 'no content type'}, which no entry of webhooks lists`];
    let body: { event?: unknown };
    try {
      body = JSON.parse(text) as { event?: unknown };
    } catch {
      return [`a webhook whose body is not JSON: ${text.slice(0, 200)}`];
    }
    // `sandbox audit-webhooks` sends one event name no sandbox publishes, on purpose: it asks whether the handler takes a future one.
    if (body.event === UNKNOWN_EVENT_TYPE) return [];
    const operation = typeof body.event === 'string' && Object.hasOwn(this.webhooks, body.event) ? this.webhooks[body.event] : undefined;
    if (!operation) return [`a webhook with event ${JSON.stringify(body.event)}, which is not in the document's webhooks`];
    return this.validateBody(`webhook ${body.event}`, operation.post.requestBody.content[type]?.schema, body);
  }

  private check(key: string, schema: unknown, answer: Answer): string[] {
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return [`${key}: the body is not JSON: ${answer.text.slice(0, 200)}`];
    }
    return this.validateBody(key, schema, body);
  }

  private validateBody(key: string, schema: unknown, body: unknown): string[] {
    if (schema === undefined) return [`${key}: the document has no schema for it`];
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(
        JSON.parse(JSON.stringify(schema ?? {}).replaceAll('"#/components/', '"openapi.json#/components/')) as object,
      );
      this.compiled.set(key, validate);
    }
    this.checked++;
    if (validate(body)) return [];
    return (validate.errors ?? [])
      .slice(0, 8)
      .map((e) => `${key}: ${e.instancePath || '(body)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  }
}

// Built when the test file loads, not on its first request: a test that times its first answer
// (a real-time delay) must not count the ~200 ms the document and ajv take to set up.
const shared = new Conformance(buildOpenApiDocument(OPENAPI_ROUTES, 'http://sandbox.test') as ConstructorParameters<typeof Conformance>[0]);

/** The validator over the document the sandbox serves (built from the same route lists). */
export function conformance(): Conformance {
  return shared;
}

// CONFORMANCE_COUNT_FILE=path: each test file appends how many answers it validated (vitest loads
// this module once per file, so the hook runs once per file).
const countFile = process.env.CONFORMANCE_COUNT_FILE;
if (countFile) afterAll(() => appendFileSync(countFile, `${shared.checked} ${shared.unmatched}\n`));

/** Throws when the document's `webhooks` do not describe a body the sandbox POSTed, naming the event and ajv's errors. */
export function checkWebhook(contentType: string, body: string): void {
  const problems = conformance().webhookProblems(contentType, body);
  if (problems.length > 0)
    throw new Error(
      `a webhook the sandbox sent does not match the webhooks of GET /openapi.json:\n  ${problems.join('\n  ')}\nbody: ${body.slice(0, 500)}`,
    );
}

/** Throws when the document does not describe `answer`, naming the route, the status and ajv's errors. */
export function checkAnswer(answer: Answer): void {
  const problems = conformance().problems(answer);
  if (problems && problems.length > 0) {
    throw new Error(
      `the answer to ${answer.method} ${answer.path} (${answer.status}) does not match GET /openapi.json:\n  ${problems.join('\n  ')}\nbody: ${answer.text.slice(0, 500)}`,
    );
  }
}

const ALREADY_SENT_HEADER = [...RESPONSE_ALREADY_SENT.headers.keys()][0]!;

/** checkAnswer() for a test that reads a Response itself (app.request with a fake connection or raw bytes); reads a clone and returns `res`. */
export async function checkedResponse(method: string, path: string, res: Response): Promise<Response> {
  // @hono/node-server's "already sent" marker: the connection was reset or closed (X-Sandbox-Fault), no answer reaches a client.
  if (res.headers.has(ALREADY_SENT_HEADER)) return res;
  checkAnswer({ method, path, status: res.status, contentType: res.headers.get('content-type'), text: await res.clone().text() });
  return res;
}
