// The conformance check the suite runs on every answer (test/helpers/conformance.ts) catches an
// answer that drifted from /openapi.json: a renamed field, a wrong type, an undocumented status or
// media type; and passes the sandbox's real answer.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { checkAnswer, conformance, type Answer } from '../helpers/conformance.js';
import { AUTH, createPayment } from '../helpers/payments-api.js';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import type { Json } from '../helpers/json.js';

let sandbox: TestSandbox;
let answer: Answer;
beforeEach(async () => {
  sandbox = createTestSandbox();
  const payment = await createPayment(sandbox, { capture: false });
  const res = await sandbox.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH);
  answer = {
    method: 'GET',
    path: `/v1/payments/${payment.id}`,
    status: res.status,
    contentType: res.headers.get('content-type'),
    text: res.text,
  };
});
afterEach(() => sandbox.close());

const withBody = (change: (body: Json) => void): Answer => {
  const body = JSON.parse(answer.text);
  change(body);
  return { ...answer, text: JSON.stringify(body) };
};

it('passes the real answer', () => {
  expect(conformance().problems(answer)).toEqual([]);
});

it('catches a renamed field, naming the route, the status and the field', () => {
  const drifted = withBody((body) => {
    body.created = body.created_at;
    delete body.created_at;
  });
  expect(() => checkAnswer(drifted)).toThrow(/GET \/v1\/payments\/\{id\} 200: \(body\) must have required property 'created_at'/);
  expect(() => checkAnswer(drifted)).toThrow(/must NOT have additional properties/);
});

it('catches a wrong type, a value outside its enum and a malformed date-time', () => {
  expect(
    conformance()
      .problems(withBody((body) => (body.amount = String(body.amount))))!
      .join('\n'),
  ).toContain('/amount must be integer');
  expect(
    conformance()
      .problems(withBody((body) => (body.status = 'approved')))!
      .join('\n'),
  ).toContain('/status must be equal to one of the allowed values');
  expect(
    conformance()
      .problems(withBody((body) => (body.created_at = 'yesterday')))!
      .join('\n'),
  ).toContain('/created_at must match format "date-time"');
});

it('catches a status or a media type the document does not list for the route', () => {
  expect(conformance().problems({ ...answer, status: 202 })).toEqual([
    expect.stringContaining('GET /v1/payments/{id} answered 202, a status the document does not list'),
  ]);
  expect(conformance().problems({ ...answer, contentType: 'text/html; charset=UTF-8' })).toEqual([
    expect.stringContaining('answered 200 as text/html, which the document does not list'),
  ]);
});

it('holds unknown paths under /api, /v1 and /_sandbox to the Error body', () => {
  expect(
    conformance().problems({
      method: 'GET',
      path: '/v1/nothing',
      status: 404,
      contentType: 'application/json',
      text: '{"message":"not found"}',
    }),
  ).toEqual([expect.stringContaining("must have required property 'error'")]);
});
