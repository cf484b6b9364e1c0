// The document's examples (fixtures/openapi-examples.json, recorded from a test sandbox by
// openapi-examples-recorder.ts): every operation's JSON or form request and JSON answer has one,
// every webhook and the error body too, and each validates against the schema it illustrates
// (ajv, JSON Schema 2020-12 with formats), so `prism mock` serves answers a client can parse (and
// does: one test asks it).
// After a view or request schema changes, record them again:
//   UPDATE_OPENAPI_EXAMPLES=1 npx vitest run test/contract/openapi-examples.test.ts
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/http/openapi/document.js';
import { OPENAPI_ROUTES } from '../../src/http/openapi-routes.js';
import { EXAMPLES_FILE } from '../../src/http/openapi/examples.js';
import { recordExamples } from './openapi-examples-recorder.js';
import { startPrismMock } from '../helpers/prism-proxy.js';

const UPDATE = process.env.UPDATE_OPENAPI_EXAMPLES === '1';
const RECORD_AGAIN = 'record them again: UPDATE_OPENAPI_EXAMPLES=1 npx vitest run test/contract/openapi-examples.test.ts';

/** Answers no example is recorded for, and why. */
const NO_EXAMPLE: Record<string, string> = {
  'get /openapi.json': 'the answer is this document itself',
};

type Media = { schema: unknown; example?: unknown };
type Op = { requestBody?: { content: Record<string, Media> }; responses: Record<string, { content?: Record<string, Media> }> };
type Doc = {
  paths: Record<string, Record<string, Op>>;
  webhooks: Record<string, { post: Op }>;
  components: { schemas: Record<string, { examples?: unknown[] }> };
};

/** Every example of the document with the schema it must satisfy, named by where it sits. */
function examplesOf(doc: Doc): Array<{ at: string; schema: unknown; example: unknown }> {
  const found: Array<{ at: string; schema: unknown; example: unknown }> = [];
  const collect = (at: string, content: Record<string, Media> | undefined) => {
    for (const [type, media] of Object.entries(content ?? {}))
      if ('example' in media) found.push({ at: `${at} ${type}`, schema: media.schema, example: media.example });
  };
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      collect(`${method} ${path} request`, op.requestBody?.content);
      for (const [status, response] of Object.entries(op.responses)) collect(`${method} ${path} ${status}`, response.content);
    }
  }
  for (const [name, hook] of Object.entries(doc.webhooks)) collect(`webhook ${name}`, hook.post.requestBody?.content);
  for (const example of doc.components.schemas.Error!.examples ?? [])
    found.push({ at: 'components.schemas.Error', schema: { $ref: '#/components/schemas/Error' }, example });
  return found;
}

describe.runIf(UPDATE)('recording the examples', () => {
  it('drives a test sandbox through every operation and writes fixtures/openapi-examples.json', async () => {
    writeFileSync(EXAMPLES_FILE, `${JSON.stringify(await recordExamples(), null, 1)}\n`);
  }, 120_000);
});

describe.skipIf(UPDATE)('the examples of GET /openapi.json', () => {
  const doc = buildOpenApiDocument(OPENAPI_ROUTES, 'http://127.0.0.1:4010') as unknown as Doc;

  it('every JSON or form request body, JSON success answer and webhook has an example, and the error body too', () => {
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const name = `${method} ${path}`;
        for (const [type, media] of Object.entries(op.requestBody?.content ?? {}))
          if (!('example' in media)) missing.push(`${name} request (${type})`);
        const status = Object.keys(op.responses).find((s) => Number(s) < 300);
        const json = status ? op.responses[status]!.content?.['application/json'] : undefined;
        if (json && !('example' in json) && !(name in NO_EXAMPLE)) missing.push(`${name} ${status} answer`);
      }
    }
    for (const [name, hook] of Object.entries(doc.webhooks)) {
      for (const [type, media] of Object.entries(hook.post.requestBody?.content ?? {}))
        if (!('example' in media)) missing.push(`webhook ${name} (${type})`);
    }
    if (!doc.components.schemas.Error!.examples?.length) missing.push('components.schemas.Error');
    expect(missing, RECORD_AGAIN).toEqual([]);
  });

  it('each example validates against its schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    ajv.addSchema({ $id: 'openapi.json', components: doc.components }, 'openapi.json');
    const examples = examplesOf(doc);
    expect(examples.length).toBeGreaterThan(90);
    const problems = examples.flatMap(({ at, schema, example }) => {
      const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')) as object);
      return validate(example) ? [] : [`${at}: ${ajv.errorsText(validate.errors)}`];
    });
    expect(problems, RECORD_AGAIN).toEqual([]);
  });

  it('prism mock answers with the recorded examples: a payment, an S2S answer, a control answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paysandbox-mock-'));
    const documentPath = join(dir, 'openapi.json');
    writeFileSync(documentPath, JSON.stringify(doc));
    const mock = await startPrismMock(documentPath);
    try {
      const op = (path: string, method: string) => doc.paths[path]![method]!;
      const exampleOf = (path: string, method: string, status: string) =>
        op(path, method).responses[status]!.content!['application/json']!.example;
      const bearer = { authorization: 'Bearer sk_test_sandbox', 'content-type': 'application/json' };
      const payment = await fetch(`${mock.url}/v1/payments`, {
        method: 'POST',
        headers: bearer,
        body: JSON.stringify(op('/v1/payments', 'post').requestBody!.content['application/json']!.example),
      });
      expect(payment.status, mock.log).toBe(200);
      expect(await payment.json()).toEqual(exampleOf('/v1/payments', 'post', '200'));
      const s2s = await fetch(`${mock.url}/api/s2s`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(op('/api/s2s', 'post').requestBody!.content['application/json']!.example),
      });
      expect(await s2s.json()).toEqual(exampleOf('/api/s2s', 'post', '200'));
      const clock = await fetch(`${mock.url}/_sandbox/clock`);
      expect(await clock.json()).toEqual(exampleOf('/_sandbox/clock', 'get', '200'));
    } finally {
      await mock.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("puts the document's own address in the recorded URLs", () => {
    const elsewhere = JSON.stringify(buildOpenApiDocument(OPENAPI_ROUTES, 'https://sandbox.example.test'));
    expect(elsewhere).toContain('"url":"https://sandbox.example.test/pay/');
    expect(elsewhere).not.toContain('http://127.0.0.1:4010');
  });
});
