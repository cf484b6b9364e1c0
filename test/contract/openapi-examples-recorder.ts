// Records fixtures/openapi-examples.json, the examples GET /openapi.json shows: a test sandbox is
// driven through every operation that takes or answers JSON (and every form), and the first
// successful request and answer of each operation are kept as they were sent and answered, with
// one event of each name as it is delivered and one error answer. Run by
// `UPDATE_OPENAPI_EXAMPLES=1 npx vitest run test/contract/openapi-examples.test.ts`.
import { expect } from 'vitest';
import { buildEncryptedData } from '../../src/crypto/s2s-cipher.js';
import { EVENT_TYPE_NAMES } from '../../src/domain/event-types.js';
import { EXAMPLES_BASE_URL, type OpenApiExamples } from '../../src/http/openapi/examples.js';
import { AUTH } from '../helpers/payments-api.js';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import type { Json } from '../helpers/json.js';

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' };

/** Drives one sandbox and keeps the first success of each operation. */
class Recorder {
  constructor(
    readonly sb: TestSandbox,
    readonly examples: OpenApiExamples = { base_url: EXAMPLES_BASE_URL, operations: {}, webhooks: {}, error: {} },
  ) {}

  /** Sends a JSON request (or none) to `path`, documented as `template`; keeps it and the answer when it succeeds. */
  async json(
    method: string,
    template: string,
    path: string,
    body?: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<Json> {
    const res = await this.sb.request(method, path, body, { ...(path.startsWith('/v1/') ? AUTH : {}), ...headers });
    expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
    const key = `${method.toLowerCase()} ${template}`;
    this.examples.operations[key] ??= { ...(body === undefined ? {} : { request: body }), response: res.json };
    return res.json;
  }

  /** Sends a form to `path`, documented as `template`; keeps the form (the answer is a page or a redirect). */
  async form(template: string, path: string, fields: Record<string, string>): Promise<void> {
    const res = await this.sb.postForm(path, fields);
    expect(res.status, `POST ${path}: ${res.text.slice(0, 300)}`).toBeLessThan(400);
    this.examples.operations[`post ${template}`] ??= { request: fields };
  }

  /** The csrf field of a page, as a browser reads it. */
  async csrf(path: string): Promise<string> {
    const page = await this.sb.request('GET', path);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
    expect(csrf, `no csrf on ${path} (${page.status}): ${page.text.slice(0, 200)}`).toBeDefined();
    return csrf!;
  }
}

/** The S2S family: payments (approved, challenged, encrypted), authstatus, authentication, refund. */
async function s2s(r: Recorder) {
  const approved = await r.json(
    'POST',
    '/api/s2s',
    '/api/s2s',
    s2sBody({
      reference: 'order-1001',
      ccno: '4242424242424242',
      webhook_url: 'http://127.0.0.1:3000/webhooks',
      return_url: 'http://127.0.0.1:3000/return',
    }),
  );
  const challenged = await r.json(
    'POST',
    '/api/s2s',
    '/api/s2s',
    s2sBody({
      reference: 'order-1002',
      ccno: '4000000000003220',
      webhook_url: 'http://127.0.0.1:3000/webhooks',
      return_url: 'http://127.0.0.1:3000/return',
    }),
  );
  await r.json('GET', '/api/s2s/status/{token}', new URL(challenged.authstatus).pathname);
  await r.json('GET', '/_sandbox/transactions/{transID}', `/_sandbox/transactions/${approved.transID}`);
  await r.json('POST', '/_sandbox/transactions/{transID}/authenticate', `/_sandbox/transactions/${challenged.transID}/authenticate`, {
    outcome: 'approve',
  });
  const inner = new URLSearchParams({
    ...(s2sBody({ reference: 'order-1003', ccno: '4242424242424242' }) as Record<string, string>),
    terNO: String(CREDS.terNO),
    encryption_method: 'aes256',
  }).toString();
  const encrypted = buildEncryptedData(inner, { privateKey: CREDS.privateKey, publicKey: CREDS.publicKey });
  const res = await r.sb.postForm('/api/s2s/encrypt', { encrypted_data: encrypted });
  expect(res.status, res.text).toBe(200);
  r.examples.operations['post /api/s2s/encrypt'] = { request: { encrypted_data: encrypted }, response: res.json };
  await r.json('POST', '/api/transactions/refund-request', '/api/transactions/refund-request', {
    transID: approved.transID,
    refundAmount: '4.00',
    public_key: CREDS.publicKey,
  });
}

/** The bearer API: tokens, payments, refunds, webhook endpoints, checkout sessions, events. */
async function v1(r: Recorder) {
  const token = await r.json('POST', '/v1/tokens', '/v1/tokens', { card });
  await r.json('GET', '/v1/tokens/{id}', `/v1/tokens/${token.id}`);
  const payment = await r.json('POST', '/v1/payments', '/v1/payments', {
    amount: 1050,
    currency: 'EUR',
    card,
    capture: false,
    reference: 'order-6735',
    description: 'Blue mug',
    metadata: { order_id: '6735' },
    customer: { country: 'NL', email: 'jane@example.com', name: 'Jane Doe' },
    return_url: 'https://shop.example/return',
    webhook_url: 'http://127.0.0.1:3000/webhooks',
  });
  await r.json('POST', '/v1/payments/{id}/capture', `/v1/payments/${payment.id}/capture`, { amount: 600 });
  await r.json('GET', '/v1/payments/{id}', `/v1/payments/${payment.id}`);
  const second = await r.json('POST', '/v1/payments', '/v1/payments', { amount: 700, currency: 'EUR', token: token.id, capture: false });
  await r.json('POST', '/v1/payments/{id}/cancel', `/v1/payments/${second.id}/cancel`, {});
  await r.json('GET', '/v1/payments', '/v1/payments?limit=2');
  const refund = await r.json('POST', '/v1/refunds', '/v1/refunds', {
    payment_id: payment.id,
    amount: 200,
    reason: 'requested_by_customer',
  });
  await r.json('GET', '/v1/refunds/{id}', `/v1/refunds/${refund.id}`);
  await r.json('GET', '/v1/refunds', `/v1/refunds?payment_id=${payment.id}`);
  const endpoint = await r.json('POST', '/v1/webhook_endpoints', '/v1/webhook_endpoints', {
    url: 'http://127.0.0.1:3000/webhooks',
    events: ['payment.captured', 'refund.succeeded'],
    description: 'order fulfilment',
  });
  await r.json('GET', '/v1/webhook_endpoints/{id}', `/v1/webhook_endpoints/${endpoint.id}`);
  await r.json('GET', '/v1/webhook_endpoints', '/v1/webhook_endpoints');
  await r.json('POST', '/v1/webhook_endpoints/{id}', `/v1/webhook_endpoints/${endpoint.id}`, { events: ['*'] });
  await r.json('PATCH', '/v1/webhook_endpoints/{id}', `/v1/webhook_endpoints/${endpoint.id}`, {
    enabled: false,
    description: 'paused during the migration',
  });
  await r.json('POST', '/v1/webhook_endpoints/{id}/rotate_secret', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`);
  const checkout = await r.json('POST', '/v1/checkout/sessions', '/v1/checkout/sessions', {
    amount: 2500,
    currency: 'EUR',
    methods: ['card', 'ideal'],
    return_url: 'https://shop.example/checkout/return',
    reference: 'order-6736',
    webhook_url: 'http://127.0.0.1:3000/webhooks',
  });
  await r.json('GET', '/v1/checkout/sessions/{id}', `/v1/checkout/sessions/${checkout.id}`);
  const unused = await r.json('POST', '/v1/checkout/sessions', '/v1/checkout/sessions', {
    amount: 900,
    currency: 'EUR',
    methods: ['card'],
    return_url: 'https://shop.example/checkout/return',
  });
  await r.json('POST', '/v1/checkout/sessions/{id}/expire', `/v1/checkout/sessions/${unused.id}/expire`);
  // The refund succeeds 2 s (sandbox time) later.
  await r.json('POST', '/_sandbox/clock/advance', '/_sandbox/clock/advance', { duration: '5s' });
  const events = await r.json('GET', '/v1/events', `/v1/events?resource_id=${payment.id}&limit=3`);
  await r.json('GET', '/v1/events/{id}', `/v1/events/${events.data[0].id}`);
  await r.json('DELETE', '/v1/webhook_endpoints/{id}', `/v1/webhook_endpoints/${endpoint.id}`);
  return { payment: payment.id as string, checkout };
}

/** The customer's pages and the dashboard's forms (their requests; their answers are HTML or redirects). */
async function pages(r: Recorder, checkout: { url: string }) {
  const token = new URL(checkout.url).pathname.split('/').pop()!;
  const pay = `/pay/${token}`;
  await r.form('/pay/{token}/ideal', `${pay}/ideal`, { csrf: await r.csrf(pay), bank: 'INGBNL2A' });
  await r.form('/pay/{token}/ideal/outcome', `${pay}/ideal/outcome`, { csrf: await r.csrf(`${pay}/ideal`), outcome: 'failed' });
  await r.form('/pay/{token}/card', `${pay}/card`, {
    csrf: await r.csrf(`${pay}?method=card`),
    number: '4000 0000 0000 3220',
    expiry: '12 / 30',
    cvc: '123',
    name: 'Jane Doe',
  });
  const sepa = await r.json('POST', '/v1/checkout/sessions', '/v1/checkout/sessions', {
    amount: 1500,
    currency: 'EUR',
    methods: ['sepa'],
    return_url: 'https://shop.example/checkout/return',
  });
  const sepaPage = `/pay/${new URL(sepa.url).pathname.split('/').pop()}`;
  await r.form('/pay/{token}/sepa', `${sepaPage}/sepa`, {
    csrf: await r.csrf(`${sepaPage}?method=sepa`),
    iban: 'AT61 1904 3002 3457 3201',
    holder: 'Jane Doe',
  });
  const challenged = await r.json('POST', '/api/s2s', '/api/s2s', s2sBody({ ccno: '4000000000003220' }));
  const authenticate = new URL(challenged.authurl).pathname;
  await r.form('/authenticate/{token}', authenticate, { csrf: await r.csrf(authenticate), action: 'submit', otp: '123456' });
  // The dashboard offers Approve / Decline on a transaction waiting for its customer.
  const waiting = await r.json('POST', '/api/s2s', '/api/s2s', s2sBody({ ccno: '4000000000003220' }));
  const dashboard = '/_sandbox/?tab=transactions';
  await r.form('/_sandbox/dashboard/authenticate', '/_sandbox/dashboard/authenticate', {
    csrf: await r.csrf(dashboard),
    subject: 'transaction',
    id: waiting.transID,
    outcome: 'approve',
    back: dashboard,
  });
  const delivery = (await r.sb.request('GET', '/_sandbox/deliveries?limit=1')).json.data[0].id as string;
  await r.form('/_sandbox/dashboard/deliveries/{id}/replay', `/_sandbox/dashboard/deliveries/${delivery}/replay`, {
    csrf: await r.csrf(`/_sandbox/dashboard/deliveries/${delivery}`),
  });
}

/** The control API: disputes, settlements, triggers, deliveries, events, faults, scenarios, merchants, state. */
async function control(r: Recorder, paymentId: string) {
  await r.json('GET', '/_sandbox/health', '/_sandbox/health');
  await r.json('GET', '/_sandbox/clock', '/_sandbox/clock');
  const won = await r.json('POST', '/_sandbox/chargebacks', '/_sandbox/chargebacks', {
    payment_id: paymentId,
    reason: 'product_not_received',
    amount: 300,
  });
  await r.json('GET', '/_sandbox/chargebacks/{id}', `/_sandbox/chargebacks/${won.id}`);
  await r.json('POST', '/_sandbox/chargebacks/{id}/win', `/_sandbox/chargebacks/${won.id}/win`);
  const captured = await r.json('POST', '/v1/payments', '/v1/payments', { amount: 2000, currency: 'EUR', card });
  const lost = await r.json('POST', '/_sandbox/chargebacks', '/_sandbox/chargebacks', { payment_id: captured.id });
  await r.json('POST', '/_sandbox/chargebacks/{id}/lose', `/_sandbox/chargebacks/${lost.id}/lose`);
  await r.json('GET', '/_sandbox/chargebacks', '/_sandbox/chargebacks?limit=2');
  const settlements = await r.json('POST', '/_sandbox/settlements', '/_sandbox/settlements', { currency: 'EUR', pay_after: '1h' });
  await r.json('GET', '/_sandbox/settlements/{id}', `/_sandbox/settlements/${settlements.data[0].id}`);
  await r.json('GET', '/_sandbox/settlements', '/_sandbox/settlements?limit=1');
  await r.json('POST', '/_sandbox/clock/advance', '/_sandbox/clock/advance', { duration: '2h' });
  await r.json('POST', '/_sandbox/events/trigger', '/_sandbox/events/trigger', {
    type: 'payment.captured',
    to: 'http://127.0.0.1:3000/webhooks',
  });
  const deliveries = await r.json('GET', '/_sandbox/deliveries', '/_sandbox/deliveries?limit=2');
  const delivery = await r.json('GET', '/_sandbox/deliveries/{id}', `/_sandbox/deliveries/${deliveries.data[0].id}`);
  // A handler that read its secret from a file with the newline at its end.
  await r.json('POST', '/_sandbox/signatures/diagnose', '/_sandbox/signatures/diagnose', {
    headers: delivery.request.headers,
    body: delivery.request.body,
    secret: `${CREDS.secret}\n`,
  });
  // `sandbox send --merchant`: a body of one's own (one captured as delivered: indented, a final newline), signed as the worker signs the merchant's webhooks.
  await r.json('POST', '/_sandbox/signatures/sign', '/_sandbox/signatures/sign', {
    merchant_id: 'mer_sandbox',
    event_type: 'payment.captured',
    content_type: 'application/json',
    body: `${JSON.stringify({ event: 'payment.captured', id: 'evt_fixture_1', data: { amount: 1990 } }, null, 2)}\n`,
  });
  await r.json('POST', '/_sandbox/deliveries/{id}/replay', `/_sandbox/deliveries/${deliveries.data[0].id}/replay`, {
    to: 'http://127.0.0.1:3000/webhooks-staging',
  });
  await r.json('POST', '/_sandbox/deliveries/retry-failed', '/_sandbox/deliveries/retry-failed', { since: '1h' });
  // An agent's client asking the MCP server why a signature fails, as the route above answers it.
  await r.json('POST', '/_sandbox/mcp', '/_sandbox/mcp', {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'diagnose_signature', arguments: { headers: delivery.request.headers, body: delivery.request.body.trim() } },
  });
  const events = await r.json('GET', '/_sandbox/events', '/_sandbox/events?limit=2');
  await r.json('GET', '/_sandbox/events/{id}', `/_sandbox/events/${events.data[0].id}`);
  await r.json('POST', '/_sandbox/events/{id}/replay', `/_sandbox/events/${events.data[0].id}/replay`, {
    to: 'http://127.0.0.1:3000/webhooks',
  });
  const faults = await r.json('POST', '/_sandbox/faults', '/_sandbox/faults', {
    spec: 'route=POST /v1/payments:status=503,p=0.2;duplicate=2',
    seed: 42,
  });
  await r.json('GET', '/_sandbox/faults', '/_sandbox/faults');
  await r.json('DELETE', '/_sandbox/faults/{id}', `/_sandbox/faults/${faults.added[0].id}`);
  await r.json('DELETE', '/_sandbox/faults', '/_sandbox/faults');
  await r.json('POST', '/_sandbox/scenarios', '/_sandbox/scenarios', {
    name: 'declines then approves',
    entries: [
      { reference: 'order-*', outcome: 'decline:insufficient_funds', times: 1 },
      { reference: 'order-*', outcome: 'approve' },
    ],
  });
  await r.json('GET', '/_sandbox/scenarios', '/_sandbox/scenarios');
  await r.json('DELETE', '/_sandbox/scenarios', '/_sandbox/scenarios');
  const merchant = await r.json('POST', '/_sandbox/merchants', '/_sandbox/merchants', { name: 'worker-1' });
  await r.json('GET', '/_sandbox/merchants/{id}', `/_sandbox/merchants/${merchant.id}`);
  await r.json('GET', '/_sandbox/merchants', '/_sandbox/merchants');
  await r.json('DELETE', '/_sandbox/merchants/{id}', `/_sandbox/merchants/${merchant.id}`);
}

/** One event of each name as the webhook that carries it (a /v1/ object's where both families publish it), and the S2S form webhook. */
async function webhooks(r: Recorder) {
  const all = (await r.sb.request('GET', '/_sandbox/events?limit=1000')).json.data as Array<{
    id: string;
    event: string;
    data: { object: string };
  }>;
  for (const type of EVENT_TYPE_NAMES) {
    if (!all.some((e) => e.event === type)) await r.sb.request('POST', '/_sandbox/events/trigger', { type });
  }
  const events = ((await r.sb.request('GET', '/_sandbox/events?limit=1000')).json.data as typeof all).reverse();
  for (const type of EVENT_TYPE_NAMES) {
    const event = events.find((e) => e.event === type && e.data.object !== 's2s_transaction') ?? events.find((e) => e.event === type)!;
    const detail = (await r.sb.request('GET', `/_sandbox/events/${event.id}`)).json;
    r.examples.webhooks[type] = JSON.parse(envelopeOf(detail));
  }
  for (const event of events) {
    const detail = (await r.sb.request('GET', `/_sandbox/events/${event.id}`)).json;
    if (detail.payload.content_type !== 'application/x-www-form-urlencoded') continue;
    r.examples.webhooks['s2s.transaction'] = Object.fromEntries(new URLSearchParams(detail.payload.body));
    break;
  }
}

/** The JSON envelope an event is delivered in: its payload when that is JSON, else the envelope of its view. */
function envelopeOf(detail: {
  event: string;
  id: string;
  data: unknown;
  created_at: string;
  payload: { content_type: string; body: string };
}): string {
  if (detail.payload.content_type === 'application/json') return detail.payload.body;
  return JSON.stringify({ event: detail.event, id: detail.id, data: detail.data, created_at: detail.created_at });
}

/** One error answer, and the state routes on a sandbox of their own (its export stays short): export, import of that export, reset. */
async function state(r: Recorder) {
  const error = await r.sb.request('POST', '/v1/payments', { amount: 1050, currency: 'EURO' }, AUTH);
  r.examples.error = error.json;
  await r.json('POST', '/v1/payments', '/v1/payments', { amount: 1050, currency: 'EUR', card });
  const snapshot = await r.json('GET', '/_sandbox/export', '/_sandbox/export');
  await r.json('POST', '/_sandbox/import', '/_sandbox/import', snapshot);
  await r.json('POST', '/_sandbox/reset', '/_sandbox/reset', {});
}

/** The sign-in form, on a sandbox started with --control-token. */
async function login(examples: OpenApiExamples) {
  const guarded = createTestSandbox({ publicUrl: EXAMPLES_BASE_URL, controlToken: 'ctl_example_token' });
  try {
    await new Recorder(guarded, examples).form('/_sandbox/login', '/_sandbox/login', { token: 'ctl_example_token' });
  } finally {
    guarded.close();
  }
}

/** Drives a fresh sandbox through every operation and returns what it sent and answered. */
export async function recordExamples(): Promise<OpenApiExamples> {
  const sb = createTestSandbox({ publicUrl: EXAMPLES_BASE_URL });
  try {
    const r = new Recorder(sb);
    await s2s(r);
    const { payment, checkout } = await v1(r);
    await pages(r, checkout);
    await control(r, payment);
    await webhooks(r);
    const fresh = createTestSandbox({ publicUrl: EXAMPLES_BASE_URL });
    try {
      await state(new Recorder(fresh, r.examples));
    } finally {
      fresh.close();
    }
    await login(r.examples);
    return r.examples;
  } finally {
    sb.close();
  }
}
