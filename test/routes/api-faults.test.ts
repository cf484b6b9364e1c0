// API faults through the in-process app: X-Sandbox-Fault and standing rules (docs/api-faults.md),
// with the database after each. reset, timeout and lost-answer act on the connection, so those
// requests carry a stand-in for @hono/node-server's {incoming, outgoing} that records what was done
// to it (test/e2e/api-faults.test.ts does the same over a real socket).
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createTestSandbox, CREDS, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH, paymentBody } from '../helpers/payments-api.js';
import { checkedResponse } from '../helpers/conformance.js';
import { buildEncryptedData } from '../../src/crypto/s2s-cipher.js';
import type { Json } from '../helpers/json.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox({ faultTimeout: '50ms', faultSeed: 7 });
});
afterEach(() => sb.close());

const count = (table: string) => sb.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;

/** A stand-in for the node:http pair: records whether the socket was reset or the answer closed. */
function fakeConnection() {
  const done: string[] = [];
  const outgoing = Object.assign(new EventEmitter(), { destroy: () => done.push('closed') });
  const incoming = { socket: { remoteAddress: '127.0.0.1', resetAndDestroy: () => done.push('reset') } };
  return { env: { incoming, outgoing }, done };
}

/** POST /v1/payments over the stand-in connection. */
async function createOver(connection: ReturnType<typeof fakeConnection>, fault: string, extra: Record<string, string> = {}) {
  const init = {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json', 'X-Sandbox-Fault': fault, ...extra },
    body: JSON.stringify(paymentBody()),
  };
  return checkedResponse('POST', '/v1/payments', await sb.app.request('/v1/payments', init, connection.env));
}

describe('X-Sandbox-Fault', () => {
  it.each([
    ['500', 'injected_server_error', null],
    ['502', 'injected_bad_gateway', null],
    ['503', 'injected_unavailable', '1'],
    ['504', 'injected_gateway_timeout', null],
    ['429', 'injected_rate_limit', '1'],
  ])('status=%s answers that status with the standard error body and creates nothing', async (status, code, retryAfter) => {
    const res = await sb.post('/v1/payments', paymentBody(), {
      ...AUTH,
      'X-Sandbox-Fault': `status=${status}`,
      'Idempotency-Key': `k-${status}`,
    });
    expect(res.status).toBe(Number(status));
    expect(res.json.error).toMatchObject({ code, request_id: expect.stringMatching(/^req_/) });
    expect(res.json.error.message).toContain('nothing was changed');
    expect(res.headers.get('retry-after')).toBe(retryAfter);
    expect(count('payments')).toBe(0);
    expect(count('events')).toBe(0);
    // The key was not used: the retry without the fault creates the payment.
    const retry = await sb.post('/v1/payments', paymentBody(), { ...AUTH, 'Idempotency-Key': `k-${status}` });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(count('payments')).toBe(1);
  });

  it('status= works on the S2S interface too', async () => {
    const res = await sb.post('/api/s2s', s2sBody(), { 'X-Sandbox-Fault': 'status=503' });
    expect(res.status).toBe(503);
    expect(count('transactions')).toBe(0);
  });

  it('latency= answers normally, after the delay', async () => {
    const started = performance.now();
    const res = await sb.post('/v1/payments', paymentBody(), { ...AUTH, 'X-Sandbox-Fault': 'latency=300ms' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(res.status).toBe(200);
    expect(count('payments')).toBe(1);
  });

  it('reset resets the connection without an answer and creates nothing', async () => {
    const connection = fakeConnection();
    await createOver(connection, 'reset', { 'Idempotency-Key': 'k-reset' });
    expect(connection.done).toEqual(['reset']);
    expect(count('payments')).toBe(0);
    expect(count('idempotency_keys')).toBe(0);
  });

  it('timeout holds the connection until --fault-timeout, closes it without an answer and creates nothing', async () => {
    const connection = fakeConnection();
    const started = performance.now();
    await createOver(connection, 'timeout');
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(connection.done).toEqual(['closed']);
    expect(count('payments')).toBe(0);
  });

  it('timeout lets go as soon as the client closes the connection', async () => {
    sb.close();
    sb = createTestSandbox({ faultTimeout: '10m' });
    const connection = fakeConnection();
    const answer = createOver(connection, 'timeout');
    setImmediate(() => connection.env.outgoing.emit('close'));
    await answer;
    expect(connection.done).toEqual(['closed']);
  });

  it('lost-answer commits the payment, drops the answer, and the keyed retry replays it: exactly one payment', async () => {
    const connection = fakeConnection();
    await createOver(connection, 'lost-answer', { 'Idempotency-Key': 'order-1001' });
    expect(connection.done).toEqual(['closed']);
    expect(count('payments')).toBe(1);
    const retry = await sb.post('/v1/payments', paymentBody(), { ...AUTH, 'Idempotency-Key': 'order-1001' });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.json.id).toBe(sb.db.prepare('SELECT id FROM payments').pluck().get());
    expect(count('payments')).toBe(1);
  });

  it.each([
    ['explode', 'unknown fault "explode"'],
    ['status=418', 'status=N with N one of 500, 502, 503, 504, 429'],
    ['latency=2m', 'at most 1m'],
    ['latency', 'latency=DURATION'],
    ['reset=1', 'reset (no value)'],
    ['status=503,reset', 'a request can end only one way'],
    ['duplicate=2', 'unknown fault "duplicate"'],
    ['', 'is empty'],
  ])('%j is a 400 that names X-Sandbox-Fault and says what to send (%s)', async (header, hint) => {
    const res = await sb.post('/v1/payments', paymentBody(), { ...AUTH, 'X-Sandbox-Fault': header });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'X-Sandbox-Fault' });
    expect(res.json.error.message).toContain(hint);
    expect(res.json.error.message).toContain('X-Sandbox-Fault');
    expect(count('payments')).toBe(0);
  });

  it('the control API and pages ignore the header', async () => {
    const res = await sb.get('/_sandbox/health', { 'X-Sandbox-Fault': 'status=503' });
    expect(res.status).toBe(200);
  });

  it('every injected fault is listed for the dashboard and goes on the activity bus', async () => {
    const seen: unknown[] = [];
    sb.services.activity.subscribe((a) => a.kind === 'fault.injected' && seen.push(a.data));
    await sb.post('/v1/payments', paymentBody(), { ...AUTH, 'X-Sandbox-Fault': 'latency=10ms,status=502' });
    expect(seen).toEqual([
      {
        request_id: expect.stringMatching(/^req_/),
        method: 'POST',
        path: '/v1/payments',
        fault: 'latency=10ms, status=502',
        origin: 'header',
      },
    ]);
    const page = await sb.get('/_sandbox/dashboard/faults');
    expect(page.status).toBe(200);
    expect(page.text).toContain('latency=10ms, status=502');
  });
});

describe('faults act only on requests that authenticate', () => {
  const KEYS = { publicKey: CREDS.publicKey, privateKey: CREDS.privateKey };
  /** A POST /api/s2s/encrypt form of an S2S body, encrypted with `keys`. */
  const encrypted = (body: Record<string, unknown>, keys: { publicKey: string; privateKey: string } = KEYS) => {
    const query = new URLSearchParams(
      Object.entries({ ...body, encryption_method: 'none' }).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    return { encrypted_data: buildEncryptedData(query, keys) };
  };
  type Send = (headers: Record<string, string>) => Promise<{ status: number; json: Json }>;
  const wrong: Array<[string, number, string, Send]> = [
    ['/v1/payments without a key', 401, 'authentication_required', (h) => sb.post('/v1/payments', paymentBody(), h)],
    [
      '/v1/payments with an unknown key',
      401,
      'invalid_credentials',
      (h) => sb.post('/v1/payments', paymentBody(), { authorization: 'Bearer sk_test_unknown', ...h }),
    ],
    ['an unknown /v1/ route without a key', 401, 'authentication_required', (h) => sb.get('/v1/nothing', h)],
    [
      '/api/s2s with an unknown public_key',
      401,
      'invalid_credentials',
      (h) => sb.post('/api/s2s', s2sBody({ public_key: 'pk_test_unknown' }), h),
    ],
    [
      "/api/s2s with another terminal's terNO",
      401,
      'invalid_credentials',
      (h) => sb.post('/api/s2s', s2sBody({ terNO: CREDS.other.terNO }), h),
    ],
    [
      '/api/s2s without credentials',
      400,
      'parameter_missing',
      (h) => sb.post('/api/s2s', s2sBody({ public_key: undefined, terNO: undefined }), h),
    ],
    [
      "/api/s2s/encrypt with another terminal's terNO inside",
      401,
      'invalid_credentials',
      (h) => sb.postForm('/api/s2s/encrypt', encrypted(s2sBody({ terNO: CREDS.other.terNO })), h),
    ],
    [
      '/api/s2s/encrypt encrypted with the wrong private key',
      400,
      'decryption_failed',
      (h) => sb.postForm('/api/s2s/encrypt', encrypted(s2sBody(), { ...KEYS, privateKey: 'pv_wrong' }), h),
    ],
    [
      '/api/transactions/refund-request with an unknown public_key',
      401,
      'invalid_credentials',
      (h) => sb.post('/api/transactions/refund-request', { transID: 'T1', refundAmount: '1.00', public_key: 'pk_test_unknown' }, h),
    ],
    ['an authstatus URL that names no transaction', 404, 'resource_missing', (h) => sb.get('/api/s2s/status/unknown-token', h)],
  ];

  it.each(wrong)('%s keeps its %i under X-Sandbox-Fault', async (_name, status, code, send) => {
    const res = await send({ 'X-Sandbox-Fault': 'status=503' });
    expect(res.status).toBe(status);
    expect(res.json.error.code).toBe(code);
    // A header that does not parse is not reported either: the credentials come first.
    expect((await send({ 'X-Sandbox-Fault': 'explode' })).status).toBe(status);
  });

  it.each(wrong)('%s keeps its %i under a standing rule for every request', async (_name, status, _code, send) => {
    expect((await sb.post('/_sandbox/faults', { spec: 'status=503' })).status).toBe(201);
    expect((await send({})).status).toBe(status);
    expect(sb.services.faults.recentInjected()).toEqual([]);
  });

  it('the same requests with the right credentials get the fault', async () => {
    const created = await sb.post('/api/s2s', s2sBody());
    expect(created.status).toBe(200);
    const fault = { 'X-Sandbox-Fault': 'status=503' };
    const right: Send[] = [
      (h) => sb.post('/v1/payments', paymentBody(), { ...AUTH, ...h }),
      (h) => sb.get('/v1/nothing', { ...AUTH, ...h }),
      (h) => sb.postForm('/api/s2s/encrypt', encrypted(s2sBody()), h),
      (h) =>
        sb.post(
          '/api/transactions/refund-request',
          { transID: created.json.transID, refundAmount: '1.00', public_key: CREDS.publicKey },
          h,
        ),
      (h) => sb.get(new URL(created.json.authstatus).pathname, h),
    ];
    for (const send of right) expect((await send(fault)).status).toBe(503);
    expect(count('transactions')).toBe(1);
  });
});

describe('standing API fault rules', () => {
  const setRule = (spec: string) => sb.post('/_sandbox/faults', { spec });

  it('a route rule applies to that route only', async () => {
    expect((await setRule('route=POST /v1/payments:status=503')).status).toBe(201);
    expect((await sb.post('/v1/payments', paymentBody(), AUTH)).status).toBe(503);
    expect((await sb.get('/v1/payments', AUTH)).status).toBe(200);
    expect(count('payments')).toBe(0);
  });

  it('a merchant= rule applies to that merchant only, by bearer key and by S2S public_key', async () => {
    expect((await setRule('merchant=mer_other:status=500')).status).toBe(201);
    expect((await sb.post('/v1/payments', paymentBody(), AUTH)).status).toBe(200);
    expect((await sb.post('/v1/payments', paymentBody(), { authorization: `Bearer ${CREDS.other.apiKey}` })).status).toBe(500);
    expect((await sb.post('/api/s2s', s2sBody({ public_key: CREDS.other.publicKey, terNO: CREDS.other.terNO }))).status).toBe(500);
    expect((await sb.post('/api/s2s', s2sBody())).status).toBe(200);
  });

  it('p= fires on a share of requests, the same ones again with the same seed', async () => {
    const run = async () => {
      await sb.post('/_sandbox/faults', { seed: 42 });
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await sb.get('/v1/payments', AUTH)).status);
      return statuses;
    };
    expect((await setRule('route=GET /v1/payments:status=503,p=0.3')).status).toBe(201);
    const first = await run();
    const failed = first.filter((s) => s === 503).length;
    expect(failed).toBeGreaterThan(3);
    expect(failed).toBeLessThan(25);
    expect(first.filter((s) => s !== 503).every((s) => s === 200)).toBe(true);
    expect(await run()).toEqual(first);
  });

  it('* in a route matches any run of characters, as the documented examples use it', async () => {
    const rule = (route: string) => sb.services.faults.add(`route=${route}:latency=1ms`);
    const matches = (method: string, path: string) => sb.services.faults.apiRulesFor(method, path).map((api) => api.rule.target);
    rule('POST /v1/payments/*/capture');
    rule('/v1/refunds*');
    rule('/api/*');
    rule('GET /v1/payments');
    expect(matches('POST', '/v1/payments/pay_1/capture')).toEqual(['POST /v1/payments/*/capture']);
    expect(matches('POST', '/v1/payments/pay_1/capture/x')).toEqual([]);
    expect(matches('GET', '/v1/refunds')).toEqual(['/v1/refunds*']);
    expect(matches('GET', '/v1/refunds/re_1')).toEqual(['/v1/refunds*']);
    expect(matches('POST', '/api/s2s/encrypt')).toEqual(['/api/*']);
    expect(matches('POST', '/api')).toEqual([]);
    expect(matches('GET', '/v1/payments')).toEqual(['GET /v1/payments']);
    expect(matches('GET', '/v1/payments/pay_1')).toEqual([]);
  });

  it('a stored route rule that no longer parses matches no request, not every one', async () => {
    sb.db
      .prepare(
        "INSERT INTO fault_rules (id, scope, target, merchant, fault, value, probability, source, created_at) VALUES ('flt_old', 'route', ?, '', 'status', '503', NULL, 'api', 0)",
      )
      .run(`/v1/${'*'.repeat(20)}`);
    sb.services.faults.stateReplaced('import'); // as POST /_sandbox/import does after writing the table
    expect((await sb.get('/v1/payments', AUTH)).status).toBe(200);
  });

  it('the header wins over the rules', async () => {
    await setRule('status=500');
    expect((await sb.post('/v1/payments', paymentBody(), { ...AUTH, 'X-Sandbox-Fault': 'latency=1ms' })).status).toBe(200);
  });

  it('rules are stored with their route, merchant and probability, and listed in the grammar', async () => {
    const res = await setRule('merchant=mer_sandbox:route=post /v1/payments*:latency=2s,lost-answer,p=0.5');
    expect(res.status).toBe(201);
    expect(res.json.added.map((r: { spec: string }) => r.spec)).toEqual([
      'merchant=mer_sandbox:route=POST /v1/payments*:latency=2s,p=0.5',
      'merchant=mer_sandbox:route=POST /v1/payments*:lost-answer,p=0.5',
    ]);
    expect(res.json.added[0]).toMatchObject({ scope: 'route', target: 'POST /v1/payments*', merchant: 'mer_sandbox', probability: 0.5 });
    expect(sb.db.prepare('SELECT scope, target, merchant, fault, probability FROM fault_rules ORDER BY fault').all()).toEqual([
      { scope: 'route', target: 'POST /v1/payments*', merchant: 'mer_sandbox', fault: 'latency', probability: 0.5 },
      { scope: 'route', target: 'POST /v1/payments*', merchant: 'mer_sandbox', fault: 'lost-answer', probability: 0.5 },
    ]);
  });

  it.each([
    ['route=POST /v1/payments:duplicate=2', 'route= filters API faults'],
    ['url=http://127.0.0.1:3000/hook:status=503', 'url= filters webhook deliveries'],
    ['duplicate=2,p=0.5', 'webhooks take fail=P'],
    ['route=/checkout:status=503', 'route=[METHOD] PATH'],
    ['status=503,p=2', 'p=P with P above 0 and at most 1'],
    ['merchant=mer x:status=503', 'merchant id'],
    [`route=/v1/${'a'.repeat(197)}:status=503`, 'its PATH is 201 characters long; a route PATH is at most 200 characters'],
    ['route=/v1/*/*/*/*/*/*/*/*/*:status=503', 'its PATH holds 9 *; a route PATH holds at most 8'],
  ])('%j is a 400 that says how to write it', async (spec, hint) => {
    const res = await setRule(spec);
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe('spec');
    expect(res.json.error.message).toContain(hint);
  });
});

describe('merchant= on webhook fault rules', () => {
  /** What the fault injector would do to the first attempt of a delivery of `merchantId`. */
  const shapeLabel = (merchantId: string) =>
    sb.services.faults.webhooks.shape(
      { id: 'dlv_probe', merchantId, endpointId: null, url: 'http://merchant.test/hook', createdAt: 0 } as never,
      1,
      {} as never,
      () => ({}) as never,
    ).fault;

  it("shapes only that merchant's deliveries, and wins over a rule for every merchant", async () => {
    expect((await sb.post('/_sandbox/faults', { spec: 'merchant=mer_other:fail-first=2;fail-first=1' })).status).toBe(201);
    expect(shapeLabel('mer_other')).toBe('fail-first=2');
    expect(shapeLabel('mer_sandbox')).toBe('fail-first=1');
  });

  it('a merchant= that names no merchant is a 404 on spec, and nothing is stored', async () => {
    const before = (await sb.get('/_sandbox/faults')).json.data.length;
    const res = await sb.post('/_sandbox/faults', { spec: 'merchant=mer_typo:status=503' });
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'resource_missing', param: 'spec', message: expect.stringContaining('mer_typo') });
    expect((await sb.get('/_sandbox/faults')).json.data.length).toBe(before);
  });
});

describe('faults in scenario documents', () => {
  it("a --scenario file's faults are rules from the start, and again after a reset", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paysandbox-faults-'));
    try {
      const file = join(dir, 'gateway-trouble.json');
      writeFileSync(file, JSON.stringify({ name: 'gateway trouble', entries: [], faults: 'route=POST /v1/payments:status=503' }));
      sb.close();
      sb = createTestSandbox({ scenario: file });
      expect((await sb.post('/v1/payments', paymentBody(), AUTH)).status).toBe(503);
      expect((await sb.get('/_sandbox/faults')).json.data).toEqual([
        expect.objectContaining({ spec: 'route=POST /v1/payments:status=503', source: 'scenario' }),
      ]);
      await sb.post('/_sandbox/reset');
      expect((await sb.post('/v1/payments', paymentBody(), AUTH)).status).toBe(503);
      expect(count('payments')).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a posted scenario document adds its faults as rules; a bad one is a 400 on faults', async () => {
    expect((await sb.post('/_sandbox/scenarios', { entries: [], faults: 'route=GET /v1/payments:status=429' })).status).toBe(201);
    expect((await sb.get('/v1/payments', AUTH)).status).toBe(429);
    const bad = await sb.post('/_sandbox/scenarios', { entries: [], faults: 'status=999' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ param: 'faults', message: expect.stringContaining('status=N with N one of') });
    // A posted scenario's rules are checked as the control API's are: a target that names nothing is a 404.
    const typo = await sb.post('/_sandbox/scenarios', { entries: [], faults: 'endpoint=we_typo:duplicate=1' });
    expect(typo.status).toBe(404);
    expect(typo.json.error).toMatchObject({ code: 'resource_missing', param: 'faults' });
    const empty = await sb.post('/_sandbox/scenarios', { entries: [] });
    expect(empty.json.error).toMatchObject({ param: 'entries', message: expect.stringContaining('only when faults or tokens is set') });
  });
});

it('--fault-timeout takes a duration of at most 10m, and says so', () => {
  expect(loadConfig({ faultTimeout: '2s' }, {}).faultTimeoutMs).toBe(2000);
  expect(loadConfig({}, {}).faultTimeoutMs).toBe(30_000);
  expect(() => loadConfig({ faultTimeout: '11m' }, {})).toThrow('--fault-timeout must be at most 10m');
  expect(() => loadConfig({}, { SANDBOX_FAULT_TIMEOUT: 'soon' })).toThrow('SANDBOX_FAULT_TIMEOUT must be a duration');
});
