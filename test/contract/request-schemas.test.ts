// The document's request schemas are as strict as the sandbox's checks: each input below goes to a
// sandbox and to ajv with the document's schema (the body, header or query parameter it is), and
// both give the same verdict. Invalid inputs are refused by both (the sandbox with a 400 naming
// the field), valid ones pass both; so a validating proxy or a generated client refuses, before a
// request leaves, what the sandbox would refuse. Rules no pattern can state (the Luhn check, a
// latency over 60 s, a fault named twice) are the sandbox's alone and left out here.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/http/openapi/document.js';
import { OPENAPI_ROUTES } from '../../src/http/openapi-routes.js';
import { AUTH, paymentBody } from '../helpers/payments-api.js';
import { seedObjects, type SeededObjects } from '../helpers/seed-objects.js';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      { requestBody?: { content: Record<string, { schema: unknown }> }; parameters?: Array<{ name: string; in: string; schema: unknown }> }
    >
  >;
  components: unknown;
};
const doc = buildOpenApiDocument(OPENAPI_ROUTES, 'http://sandbox.test') as unknown as Doc;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema({ $id: 'openapi.json', components: doc.components }, 'openapi.json');
const compiled = new Map<string, ValidateFunction>();

/** The document's schema of one input of an operation: its JSON body, or a header or query parameter. */
function documentSchema(
  method: string,
  template: string,
  input: { in: 'body' } | { in: 'header' | 'query'; name: string },
): ValidateFunction {
  const key = `${method} ${template} ${JSON.stringify(input)}`;
  let validate = compiled.get(key);
  if (validate) return validate;
  const op = doc.paths[template]?.[method.toLowerCase()];
  if (!op) throw new Error(`the document has no ${key}`);
  const schema =
    input.in === 'body'
      ? op.requestBody?.content['application/json']?.schema
      : op.parameters?.find((p) => p.in === input.in && p.name.toLowerCase() === input.name.toLowerCase())?.schema;
  if (!schema) throw new Error(`the document has no schema for ${key}`);
  validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')) as object);
  compiled.set(key, validate);
  return validate;
}

/** One input: where it goes, the request that carries it, and whether the sandbox takes it. */
interface Case {
  name: string;
  method: 'GET' | 'POST';
  template: string;
  path?: (ids: SeededObjects) => string;
  input: { in: 'body' } | { in: 'header' | 'query'; name: string };
  body?: (ids: SeededObjects) => Record<string, unknown>;
  headers?: Record<string, string>;
  /** The header or query value (input.in header or query). */
  value?: string;
  valid: boolean;
}

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' };
const payment = (extra: Record<string, unknown>) => () => paymentBody(extra);
const checkout = (extra: Record<string, unknown>) => () => ({
  amount: 2500,
  currency: 'EUR',
  methods: ['card'],
  return_url: 'https://shop.example/return',
  ...extra,
});
const session = (overrides: Record<string, unknown>) => () => s2sBody(overrides);
const refund = (refundAmount: unknown) => (ids: SeededObjects) => ({
  transID: ids.transApproved,
  refundAmount,
  public_key: CREDS.publicKey,
});

const body = (
  name: string,
  method: 'POST',
  template: string,
  make: (ids: SeededObjects) => Record<string, unknown>,
  valid: boolean,
  extra: Partial<Case> = {},
): Case => ({ name, method, template, input: { in: 'body' }, body: make, valid, ...extra });
const v1 = (
  name: string,
  template: string,
  make: (ids: SeededObjects) => Record<string, unknown>,
  valid: boolean,
  path?: (ids: SeededObjects) => string,
): Case => body(name, 'POST', template, make, valid, { headers: AUTH, path });
const control = (
  name: string,
  template: string,
  make: (ids: SeededObjects) => Record<string, unknown>,
  valid: boolean,
  path?: (ids: SeededObjects) => string,
): Case => body(name, 'POST', template, make, valid, { path });
const header = (name: string, value: string, valid: boolean): Case => ({
  name: `${name}: ${JSON.stringify(value)}`,
  method: 'POST',
  template: '/v1/payments',
  input: { in: 'header', name },
  body: payment({}),
  headers: AUTH,
  value,
  valid,
});

const CASES: Case[] = [
  // X-Sandbox-Fault: valid faults are taken (the answer is the fault asked for), malformed ones refused.
  header('X-Sandbox-Fault', 'status=503', true),
  header('X-Sandbox-Fault', ' LATENCY = 5ms , status=429', true),
  header('X-Sandbox-Fault', 'status=404', false),
  header('X-Sandbox-Fault', 'latency', false),
  header('X-Sandbox-Fault', 'latency=soon', false),
  header('X-Sandbox-Fault', 'explode', false),
  header('X-Sandbox-Fault', 'status=503,', false),
  header('X-Sandbox-Fault', 'reset=1', false),
  // Idempotency-Key: 1-255 printable ASCII characters.
  header('Idempotency-Key', 'order-6735-create', true),
  header('Idempotency-Key', 'k'.repeat(256), false),
  header('Idempotency-Key', 'tab\there', false),
  // Currencies: ISO 4217, any case on /v1/ and the control API, capitals on S2S.
  v1('currency eur', '/v1/payments', payment({ currency: 'eur' }), true),
  v1('currency EuR', '/v1/payments', payment({ currency: 'EuR' }), true),
  v1('currency XYZ', '/v1/payments', payment({ currency: 'XYZ' }), false),
  v1('currency EURO', '/v1/payments', payment({ currency: 'EURO' }), false),
  body('bill_currency EUR', 'POST', '/api/s2s', session({ bill_currency: 'EUR' }), true),
  body('bill_currency eur', 'POST', '/api/s2s', session({ bill_currency: 'eur' }), false),
  body('bill_currency XYZ', 'POST', '/api/s2s', session({ bill_currency: 'XYZ' }), false),
  control('settlement currency usd', '/_sandbox/settlements', () => ({ currency: 'usd' }), true),
  control('settlement currency ZZZ', '/_sandbox/settlements', () => ({ currency: 'ZZZ' }), false),
  // URL fields: absolute http(s) URLs, no userinfo, no spaces.
  v1('return_url https', '/v1/payments', payment({ return_url: 'HTTPS://shop.example/return?o=1' }), true),
  v1('return_url ftp', '/v1/payments', payment({ return_url: 'ftp://shop.example/r' }), false),
  v1('return_url relative', '/v1/payments', payment({ return_url: '/return' }), false),
  v1('return_url with userinfo', '/v1/payments', payment({ return_url: 'https://user@shop.example/r' }), false),
  v1('webhook_url with a space', '/v1/payments', payment({ webhook_url: 'https://shop.example/a b' }), false),
  v1('logo_url javascript:', '/v1/checkout/sessions', checkout({ branding: { logo_url: 'javascript:alert(1)' } }), false),
  v1('endpoint url', '/v1/webhook_endpoints', () => ({ url: 'http://127.0.0.1:3000/hook', events: ['*'] }), true),
  v1('endpoint url without scheme', '/v1/webhook_endpoints', () => ({ url: '127.0.0.1:3000/hook', events: ['*'] }), false),
  body('S2S webhook_url mailto:', 'POST', '/api/s2s', session({ webhook_url: 'mailto:shop@example.com' }), false),
  control(
    'replay to ftp',
    '/_sandbox/events/{id}/replay',
    () => ({ to: 'ftp://127.0.0.1/x' }),
    false,
    (ids) => `/_sandbox/events/${ids.event}/replay`,
  ),
  // card.number: 13-19 digits once spaces and dashes are dropped; exp_year two or four digits.
  v1('card.number with spaces', '/v1/tokens', () => ({ card: { ...card, number: '4242 4242 4242 4242' } }), true),
  v1('card.number with dashes', '/v1/tokens', () => ({ card: { ...card, number: '4242-4242-4242-4242' } }), true),
  v1('card.number too short', '/v1/tokens', () => ({ card: { ...card, number: '4242' } }), false),
  v1('card.number with a letter', '/v1/tokens', () => ({ card: { ...card, number: '4242x42424242424' } }), false),
  v1('exp_year 30', '/v1/tokens', () => ({ card: { ...card, exp_year: 30 } }), true),
  v1('exp_year 150', '/v1/tokens', () => ({ card: { ...card, exp_year: 150 } }), false),
  // refundAmount: the rule bill_amt has.
  body('refundAmount "1.00"', 'POST', '/api/transactions/refund-request', refund('1.00'), true),
  body('refundAmount " 2.5 "', 'POST', '/api/transactions/refund-request', refund(' 2.5 '), true),
  body('refundAmount 3 (a number)', 'POST', '/api/transactions/refund-request', refund(3), true),
  body('refundAmount "0.00"', 'POST', '/api/transactions/refund-request', refund('0.00'), false),
  body('refundAmount "1.234"', 'POST', '/api/transactions/refund-request', refund('1.234'), false),
  body('refundAmount "ten"', 'POST', '/api/transactions/refund-request', refund('ten'), false),
  body('refundAmount -1', 'POST', '/api/transactions/refund-request', refund(-1), false),
  // Durations and specs.
  control('clock advance 1h30m', '/_sandbox/clock/advance', () => ({ duration: '1h30m' }), true),
  control('clock advance 15 (no unit)', '/_sandbox/clock/advance', () => ({ duration: '15' }), false),
  control('clock advance -5m', '/_sandbox/clock/advance', () => ({ duration: '-5m' }), false),
  control('clock advance 0s', '/_sandbox/clock/advance', () => ({ duration: '0s' }), false),
  control('clock advance soon', '/_sandbox/clock/advance', () => ({ duration: 'soon' }), false),
  control('clock advance waiting 10s', '/_sandbox/clock/advance', () => ({ duration: '30d', wait: '10s' }), true),
  control('clock advance waiting a while', '/_sandbox/clock/advance', () => ({ duration: '30d', wait: 'a while' }), false),
  // A token's scripted future (issue 33): approve or a decline code of the test-card table.
  ...(
    [
      ['approve, insufficient_funds', ['approve', 'insufficient_funds'], true],
      ['maybe', ['maybe'], false],
      ['none', [], false],
    ] as const
  ).map(([name, outcomes, valid]) =>
    control(
      `token outcomes ${name}`,
      '/_sandbox/tokens/{id}/outcomes',
      () => ({ outcomes }),
      valid,
      (ids) => `/_sandbox/tokens/${ids.token}/outcomes`,
    ),
  ),
  v1('initiator robot', '/v1/payments', payment({ initiator: 'robot' }), false),
  v1('setup_future_usage on_session', '/v1/payments', payment({ setup_future_usage: 'on_session' }), false),
  control('pay_after 0s', '/_sandbox/settlements', () => ({ pay_after: '0s' }), true),
  control('pay_after tomorrow', '/_sandbox/settlements', () => ({ pay_after: 'tomorrow' }), false),
  control('retry-failed since 10m', '/_sandbox/deliveries/retry-failed', () => ({ since: '10m' }), true),
  control('retry-failed since an ISO time', '/_sandbox/deliveries/retry-failed', () => ({ since: '2026-01-15T12:00:00Z' }), true),
  control('retry-failed since yesterday', '/_sandbox/deliveries/retry-failed', () => ({ since: 'yesterday' }), false),
  control('fault spec duplicate=2;;reorder', '/_sandbox/faults', () => ({ spec: 'duplicate=2;;reorder' }), true),
  control('fault spec with route and p', '/_sandbox/faults', () => ({ spec: 'route=POST /v1/payments:status=503,p=0.2' }), true),
  control('fault spec with a url', '/_sandbox/faults', () => ({ spec: 'url=http://127.0.0.1:3000/hook:fail-first=2' }), true),
  control('fault spec explode=1', '/_sandbox/faults', () => ({ spec: 'explode=1' }), false),
  control('fault spec with a target and no fault', '/_sandbox/faults', () => ({ spec: 'merchant=mer_sandbox:' }), false),
  control(
    'scenario outcome DECLINE:insufficient_funds',
    '/_sandbox/scenarios',
    () => ({ entries: [{ reference: 'o-*', outcome: ' DECLINE:insufficient_funds' }] }),
    true,
  ),
  control(
    'scenario outcome decline:nope',
    '/_sandbox/scenarios',
    () => ({ entries: [{ reference: 'o-*', outcome: 'decline:nope' }] }),
    false,
  ),
  control('scenario faults bogus', '/_sandbox/scenarios', () => ({ entries: [], faults: 'bogus' }), false),
  // Event names.
  v1('events ["payment.captured"]', '/v1/webhook_endpoints', () => ({ url: 'https://shop.example/h', events: ['payment.captured'] }), true),
  v1(
    'events ["*", "payment.captured"]',
    '/v1/webhook_endpoints',
    () => ({ url: 'https://shop.example/h', events: ['*', 'payment.captured'] }),
    false,
  ),
  v1('events ["payment.shipped"]', '/v1/webhook_endpoints', () => ({ url: 'https://shop.example/h', events: ['payment.shipped'] }), false),
  {
    name: 'GET /v1/events?type=payment.shipped',
    method: 'GET',
    template: '/v1/events',
    input: { in: 'query', name: 'type' },
    headers: AUTH,
    value: 'payment.shipped',
    valid: false,
  },
  {
    name: 'GET /v1/events?type=refund.failed',
    method: 'GET',
    template: '/v1/events',
    input: { in: 'query', name: 'type' },
    headers: AUTH,
    value: 'refund.failed',
    valid: true,
  },
  control('trigger payment.shipped', '/_sandbox/events/trigger', () => ({ type: 'payment.shipped' }), false),
  // One of two fields, never both.
  control('chargeback on payment_id', '/_sandbox/chargebacks', (ids) => ({ payment_id: ids.payment }), true),
  control(
    'chargeback on transID and payment_id',
    '/_sandbox/chargebacks',
    (ids) => ({ payment_id: ids.payment, transID: ids.transApproved }),
    false,
  ),
  control('chargeback on nothing', '/_sandbox/chargebacks', () => ({ reason: 'fraudulent' }), false),
  v1('payment with card and token', '/v1/payments', payment({ card, token: 'tok_visa' }), false),
  v1('payment with method ideal', '/v1/payments', payment({ method: 'ideal' }), false),
  // Lists and combinations.
  v1('checkout methods twice', '/v1/checkout/sessions', checkout({ methods: ['card', 'card'] }), false),
  v1('checkout ideal in USD', '/v1/checkout/sessions', checkout({ methods: ['ideal'], currency: 'USD' }), false),
  v1('checkout ideal in eur', '/v1/checkout/sessions', checkout({ methods: ['card', 'ideal'], currency: 'eur' }), true),
  body('S2S CC without ccno', 'POST', '/api/s2s', session({ ccno: undefined }), false),
  body(
    'S2S UPICOLLECT without vpa',
    'POST',
    '/api/s2s',
    session({ mop: 'UPICOLLECT', ccno: undefined, ccvv: undefined, month: undefined, year: undefined }),
    false,
  ),
  body(
    'S2S UPICOLLECT with a vpa',
    'POST',
    '/api/s2s',
    session({ mop: 'UPICOLLECT', vpa: 'success@upi', ccno: undefined, ccvv: undefined, month: undefined, year: undefined }),
    true,
  ),
  body('S2S month "7"', 'POST', '/api/s2s', session({ month: '7' }), false),
];

let sb: TestSandbox;
let ids: SeededObjects;
beforeEach(async () => {
  sb = createTestSandbox();
  ids = await seedObjects(sb);
});
afterEach(() => sb.close());

/** What the sandbox says to the case's request: its status and error code. */
async function sandboxAnswer(c: Case): Promise<{ status: number; code?: string; text: string }> {
  let path = c.path?.(ids) ?? c.template;
  const headers: Record<string, string> = { ...c.headers };
  if (c.input.in === 'header') headers[c.input.name] = c.value!;
  if (c.input.in === 'query') path += `?${new URLSearchParams({ [c.input.name]: c.value! })}`;
  const made = c.body?.(ids);
  const res = await sb.request(c.method, path, made ? JSON.parse(JSON.stringify(made)) : undefined, headers);
  return { status: res.status, code: res.json?.error?.code, text: res.text };
}

/** The input the document's schema sees. */
function documentInput(c: Case): unknown {
  if (c.input.in !== 'body') return c.value;
  return JSON.parse(JSON.stringify(c.body!(ids)));
}

describe('request schemas against the sandbox', () => {
  it.each(CASES.map((c) => [c.valid ? 'valid' : 'invalid', c.name, c] as const))('%s: %s', async (_verdict, _name, c) => {
    const answer = await sandboxAnswer(c);
    const validate = documentSchema(c.method, c.template, c.input);
    const documentTakes = validate(documentInput(c));
    if (c.valid) {
      // Taken by the sandbox: a success, or the fault the header asked for.
      expect(answer.status === 400 || answer.status === 422, `the sandbox refused it: ${answer.text}`).toBe(false);
      expect(documentTakes, `the document refuses it: ${ajv.errorsText(validate.errors)}`).toBe(true);
    } else {
      expect(answer.status, `the sandbox took it: ${answer.text}`).toBe(400);
      expect(['parameter_invalid', 'parameter_missing', 'parameter_unknown']).toContain(answer.code);
      expect(documentTakes, 'the document takes what the sandbox refuses').toBe(false);
    }
  });
});
