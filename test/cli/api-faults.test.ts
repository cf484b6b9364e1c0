// `sandbox faults set` with API fault rules, through the program object against a real sandbox.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { startTestServer } from '../helpers/test-sandbox.js';
import { runCli } from '../helpers/cli-harness.js';
import { api } from '../helpers/http.js';
import { AUTH, paymentBody } from '../helpers/payments-api.js';

let sandbox: RunningServer;
beforeEach(async () => {
  sandbox = await startTestServer();
});
afterEach(() => sandbox.close());

it('faults set adds an API rule with a route, a merchant and a probability, and the API answers by it', async () => {
  const set = await runCli([
    'faults',
    'set',
    'merchant=mer_sandbox:route=POST /v1/payments:status=503,p=1',
    '--seed',
    '3',
    '--url',
    sandbox.url,
  ]);
  expect(set.error).toBeUndefined();
  expect(set.out).toMatch(
    /^ID\s+RULE\s+SET BY\nflt_\S+\s+merchant=mer_sandbox:route=POST \/v1\/payments:status=503,p=1\s+control API\nseed 3$/,
  );
  const http = api(sandbox.url);
  const res = await http.post('/v1/payments', paymentBody(), AUTH);
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('1');
  expect((await http.get('/v1/payments', AUTH)).json.data).toEqual([]);
});

it('faults set with an API fault it cannot take names the problem', async () => {
  const { error } = await runCli(['faults', 'set', 'route=POST /v1/payments:status=418', '--url', sandbox.url]);
  expect(error).toBe('spec has "status=418"; write status=N with N one of 500, 502, 503, 504, 429 (400 parameter_invalid)');
});
