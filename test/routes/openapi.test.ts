// GET /openapi.json: every API route of the app is in the document (so a route added without
// documentation fails here), request bodies come from the validating zod schemas, and errors
// are documented with the one error body.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { openApiPath } from '../../src/http/openapi/route.js';
import { AUTH, createPayment } from '../helpers/payments-api.js';
import type { Json } from '../helpers/json.js';

let sandbox: TestSandbox;
beforeEach(() => {
  sandbox = createTestSandbox();
});
afterEach(() => sandbox.close());

/** The method+path pairs the app really answers on, pages and assets included (middleware entries have method ALL). */
function appRoutes(): string[] {
  // The dashboard is served at /_sandbox/ and documented as /_sandbox (a path with a trailing slash is refused by linters).
  const pairs = sandbox.app.routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => `${r.method.toLowerCase()} ${openApiPath(r.path === '/_sandbox/' ? '/_sandbox' : r.path)}`);
  return [...new Set(pairs)].sort();
}

function documentedRoutes(doc: Json): string[] {
  return Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`))
    .sort();
}

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document served as JSON', async () => {
    const res = await sandbox.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.json.openapi).toBe('3.1.0');
    expect(res.json.servers[0].url).toBe('http://sandbox.test');
  });

  it('documents exactly the API routes the app registers', async () => {
    const doc = (await sandbox.request('GET', '/openapi.json')).json;
    const registered = appRoutes();
    const documented = documentedRoutes(doc);
    expect(
      registered.filter((r) => !documented.includes(r)),
      'routes missing from /openapi.json',
    ).toEqual([]);
    expect(
      documented.filter((r) => !registered.includes(r)),
      'documented routes the app does not serve',
    ).toEqual([]);
    expect(registered.length).toBeGreaterThan(10);
  });

  it('takes request bodies from the zod schemas that validate them', async () => {
    const doc = (await sandbox.request('GET', '/openapi.json')).json;
    const s2s = doc.paths['/api/s2s'].post.requestBody.content['application/json'].schema;
    expect(s2s.required).toEqual(
      expect.arrayContaining(['public_key', 'terNO', 'bill_amt', 'bill_currency', 'reference', 'webhook_url', 'return_url', 'mop']),
    );
    expect(s2s.properties.mop.enum).toEqual(['CC', 'DC', 'NB', 'WALLET', 'UPICOLLECT', 'QRINTENT']);
    // The same description is the hint of the validation error.
    const res = await sandbox.request('POST', '/api/s2s', { public_key: 'pk_test_1001' });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain(s2s.properties.terNO.description);

    const endpoint = doc.paths['/v1/webhook_endpoints'].post.requestBody.content['application/json'].schema;
    expect(endpoint.required).toEqual(['url', 'events']);
    expect(endpoint.additionalProperties).toBe(false);
  });

  it('documents query filters as parameters and path ids as path parameters', async () => {
    const doc = (await sandbox.request('GET', '/openapi.json')).json;
    const names = doc.paths['/v1/events'].get.parameters.map((p: Json) => `${p.in}:${p.name}`);
    expect(names).toEqual(expect.arrayContaining(['query:limit', 'query:starting_after', 'query:type', 'query:created[gte]']));
    expect(doc.paths['/v1/events/{id}'].get.parameters).toContainEqual({
      name: 'id',
      in: 'path',
      required: true,
      schema: { type: 'string' },
    });
  });

  it('documents errors with the one error body and the Idempotency-Key header on public POSTs', async () => {
    const doc = (await sandbox.request('GET', '/openapi.json')).json;
    expect(doc.components.schemas.Error.properties.error.required).toEqual(['type', 'code', 'message', 'request_id']);
    const create = doc.paths['/v1/webhook_endpoints'].post;
    expect(create.responses['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(create.responses['401'].description).toContain('invalid_credentials');
    expect(create.responses['409'].description).toContain('idempotency_key_reused');
    // Strict bodies document parameter_unknown; the S2S body ignores unknown fields, as the gateway does.
    expect(create.responses['400'].description).toContain('parameter_unknown');
    expect(doc.paths['/api/s2s'].post.responses['400'].description).not.toContain('parameter_unknown');
    expect(create.parameters.map((p: Json) => p.name)).toContain('Idempotency-Key');
    expect(doc.paths['/_sandbox/clock/advance'].post.parameters ?? []).not.toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key' }),
    );
    expect(create.security).toEqual([{ apiKey: [] }]);
  });

  it('shows the encrypted endpoint as a form, with the parameters inside encrypted_data', async () => {
    const op = (await sandbox.request('GET', '/openapi.json')).json.paths['/api/s2s/encrypt'].post;
    expect(op.requestBody.content['application/x-www-form-urlencoded'].schema.required).toEqual(['encrypted_data']);
    expect(op['x-encrypted-parameters'].required).toEqual(expect.arrayContaining(['public_key', 'terNO', 'encryption_method']));
    expect(op.responses['400'].description).toContain('decryption_failed');
  });

  it('declares every path parameter and a success answer on every operation', async () => {
    const doc = (await sandbox.request('GET', '/openapi.json')).json;
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries(ops)) {
        const declared = (op.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
        expect(declared, `${method} ${path}`).toEqual(names);
        // A 303 is the success answer of the dashboard's form posts (POST, then redirect).
        expect(
          Object.keys(op.responses).some((status) => /^(2\d\d|303)$/.test(status)),
          `${method} ${path}`,
        ).toBe(true);
        expect(op.summary, `${method} ${path}`).toBeTruthy();
      }
    }
  });

  it('documents capture and cancel with the optional body the routes take (none, {} or a capture amount)', async () => {
    const doc = (await sandbox.request('GET', '/openapi.json')).json;
    const capture = doc.paths['/v1/payments/{id}/capture'].post.requestBody;
    const cancel = doc.paths['/v1/payments/{id}/cancel'].post.requestBody;
    expect(capture.required).toBe(false);
    expect(cancel.required).toBe(false);
    const captureSchema = capture.content['application/json'].schema;
    expect(Object.keys(captureSchema.properties)).toEqual(['amount']);
    expect(captureSchema.required ?? []).toEqual([]);
    expect(cancel.content['application/json'].schema).toMatchObject({ type: 'object', properties: {}, additionalProperties: false });
    // What the document allows is what the routes accept: neither needs a body.
    const captured = await sandbox.request(
      'POST',
      `/v1/payments/${(await createPayment(sandbox, { capture: false })).id}/capture`,
      undefined,
      AUTH,
    );
    expect(captured.status, captured.text).toBe(200);
    const canceled = await sandbox.request(
      'POST',
      `/v1/payments/${(await createPayment(sandbox, { capture: false })).id}/cancel`,
      undefined,
      AUTH,
    );
    expect(canceled.status, canceled.text).toBe(200);
  });

  it('names the answers as reusable components and types query integers, metadata and event data', async () => {
    const doc = (await sandbox.request('GET', '/openapi.json')).json;
    const schemas = doc.components.schemas;
    for (const name of [
      'Payment',
      'Refund',
      'Transaction',
      'S2SPaymentAnswer',
      'S2SRefundAnswer',
      'Token',
      'WebhookEndpoint',
      'WebhookEndpointWithSecret',
      'CheckoutSession',
      'Event',
      'Delivery',
      'Chargeback',
      'Settlement',
      'FaultRule',
      'Merchant',
      'PaymentList',
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    const json = (path: string, method: string, status: string) =>
      doc.paths[path][method].responses[status].content['application/json'].schema;
    expect(json('/v1/payments/{id}', 'get', '200')).toEqual({ $ref: '#/components/schemas/Payment' });
    expect(json('/api/s2s', 'post', '200')).toEqual({ $ref: '#/components/schemas/S2SPaymentAnswer' });
    expect(json('/api/transactions/refund-request', 'post', '200')).toEqual({ $ref: '#/components/schemas/S2SRefundAnswer' });
    expect(json('/v1/webhook_endpoints', 'post', '200')).toEqual({ $ref: '#/components/schemas/WebhookEndpointWithSecret' });
    expect(schemas.WebhookEndpointWithSecret.required).toContain('secret');
    expect(schemas.WebhookEndpoint.properties.secret).toBeUndefined();
    expect(schemas.Payment.properties.created_at.format).toBe('date-time');
    expect(schemas.Payment.properties.method.enum).toEqual(['card', 'ideal', 'sepa']);
    // Event: one schema per event name, chosen by the event field.
    expect(schemas.Event.discriminator.propertyName).toBe('event');
    expect(schemas.Event.discriminator.mapping['payment.captured']).toBe('#/components/schemas/PaymentCapturedEvent');
    expect(schemas.PaymentCapturedEvent.properties.event.const).toBe('payment.captured');
    const limit = doc.paths['/v1/events'].get.parameters.find((p: Json) => p.name === 'limit').schema;
    expect(limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(doc.paths['/v1/events'].get.parameters.find((p: Json) => p.name === 'created[gte]').schema.type).toBe('integer');
    const metadata = doc.paths['/v1/payments'].post.requestBody.content['application/json'].schema.properties.metadata;
    expect(metadata).toMatchObject({ type: 'object', maxProperties: 50, additionalProperties: { type: 'string', maxLength: 500 } });
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  });

  it('shows pages as HTML, redirects with a Location, the stream as text/event-stream, and webhooks per event name', async () => {
    const doc = (await sandbox.request('GET', '/openapi.json')).json;
    expect(Object.keys(doc.paths['/pay/{token}'].get.responses['200'].content)).toEqual(['text/html']);
    expect(doc.paths['/authenticate/{token}'].post.responses['303'].headers.Location).toBeDefined();
    expect(Object.keys(doc.paths['/_sandbox/stream'].get.responses['200'].content)).toEqual(['text/event-stream']);
    expect(doc.webhooks['payment.authorized'].post.requestBody.content['application/json'].schema.properties.event.const).toBe(
      'payment.authorized',
    );
    expect(Object.keys(doc.webhooks['s2s.transaction'].post.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(Object.keys(doc.paths['/llms.txt'].get.responses['200'].content)).toEqual(['text/markdown']);
    // Every operation but the documents themselves (which take no input) documents a 4xx.
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, op] of Object.entries(ops)) {
        if (path === '/openapi.json' || path === '/llms.txt' || path.startsWith('/assets/') || path === '/favicon.ico') continue;
        expect(
          Object.keys(op.responses).some((status) => /^4\d\d$/.test(status)),
          `${method} ${path}`,
        ).toBe(true);
      }
    }
  });

  it('gives every operation a unique operationId', async () => {
    const doc = (await sandbox.request('GET', '/openapi.json')).json;
    const ids = Object.values(doc.paths as Record<string, Record<string, Json>>).flatMap((ops) =>
      Object.values(ops).map((op) => op.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares every tag its operations and webhooks name at the top level, once each, with a description', async () => {
    const doc = (await sandbox.request('GET', '/openapi.json')).json;
    const declared = (doc.tags as Array<{ name: string; description: string }>).map((tag) => tag.name);
    expect(new Set(declared).size).toBe(declared.length);
    for (const tag of doc.tags) expect(tag.description.length, tag.name).toBeGreaterThan(10);
    const operations = [
      ...Object.values(doc.paths as Record<string, Record<string, Json>>).flatMap((ops) => Object.values(ops)),
      ...Object.values(doc.webhooks as Record<string, Json>).map((hook) => hook.post),
    ];
    const used = new Set(operations.flatMap((op) => op.tags as string[]));
    expect(
      [...used].filter((tag) => !declared.includes(tag)),
      'tags used but not declared',
    ).toEqual([]);
    expect(
      declared.filter((tag) => !used.has(tag)),
      'tags declared but not used',
    ).toEqual([]);
    // The control tag says what its guard requires of a request.
    expect(doc.tags.find((tag: { name: string }) => tag.name === 'Sandbox control').description).toContain('Content-Length 0');
  });
});
