// `sandbox requests` (the journal, --tail), `sandbox requests expect` (exit 1 with near misses) and
// `sandbox trace` against a real sandbox, through the program object.
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/program.js';
import { runCli } from '../helpers/cli-harness.js';
import type { Json } from '../helpers/json.js';
import { AUTH } from '../helpers/payments-api.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { waitFor } from '../helpers/wait-for.js';

const env = useSandboxWithMerchant({ each: true, flags: { retry: 'none' } });

const cli = (...args: string[]) => runCli([...args, '--url', env.sandbox.url]);
const pay = async (body: Record<string, unknown> = {}) =>
  (await env.http.post('/v1/payments', { amount: 1050, currency: 'EUR', token: 'tok_visa', ...body }, AUTH)).json;

describe('sandbox requests', () => {
  it('prints the journal oldest first, one line a request, filtered; --json as data', async () => {
    const payment = await pay();
    await env.http.get(`/v1/payments/${payment.id}`, AUTH);
    const { out, exitCode } = await cli('requests', '--path', '/v1/payments*');
    expect(exitCode).toBe(0);
    const lines = out.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} {2}req_\S+ {2}POST {3}\/v1\/payments {2}200 {2}[\d.]+ms {2}mer_sandbox$/,
    );
    expect(lines[1]).toContain(`GET    /v1/payments/${payment.id}  200`);
    const data: Json[] = JSON.parse((await cli('requests', '--method', 'POST', '--json')).out);
    expect(data.map((e) => e.path)).toEqual(['/v1/payments']);
    expect((await cli('requests', '--status', '5xx')).out).toBe('no requests kept that match');
  });

  it('names a bad filter', async () => {
    const run = await cli('requests', '--status', 'oops');
    expect(run.exitCode).toBe(1);
    expect(run.error).toMatch(/status is invalid: expected a status such as 402, or a class such as 4xx, got "oops"/);
  });

  it('--tail --json prints each new request as one line, and --count stops it', async () => {
    await pay();
    const out: string[] = [];
    const io: CliIo = { out: (t) => void out.push(t), err: () => undefined };
    const done = buildProgram(io).parseAsync(['node', 'sandbox', 'requests', '--tail', '--json', '--count', '2', '--url', env.sandbox.url]);
    await waitFor(() => out.length === 1, 'the request already kept');
    const second = await pay({ amount: 2000 });
    await env.http.get(`/v1/payments/${second.id}`, AUTH);
    await done;
    const lines = out.map((line) => JSON.parse(line));
    expect(lines.map((e) => `${e.method} ${e.path}`)).toEqual(['POST /v1/payments', 'POST /v1/payments', `GET /v1/payments/${second.id}`]);
  });
});

describe('sandbox requests expect', () => {
  it('exits 0 when a request matches the partial body', async () => {
    await pay({ metadata: { order_id: 'o-7' } });
    const run = await cli('requests', 'expect', '--method', 'POST', '--path', '/v1/payments', '--body', '{"metadata":{"order_id":"o-7"}}');
    expect(run.exitCode, run.out).toBe(0);
    expect(run.out).toMatch(/^1 request\(s\) POST \/v1\/payments.*, as expected/);
  });

  it('exits 1 with the near misses and the fields that differ', async () => {
    await pay({ amount: 1000 });
    const run = await cli('requests', 'expect', '--method', 'POST', '--path', '/v1/payments', '--body', '{"amount":1050}');
    expect(run.exitCode).toBe(1);
    expect(run.out).toContain('body.amount: expected 1050, got 1000');
    const json = await cli('requests', 'expect', '--path', '/v1/payments', '--body', '{"amount":1050}', '--json');
    expect(json.exitCode).toBe(1);
    expect(JSON.parse(json.out).near_misses[0].differences).toEqual([{ field: 'body.amount', expected: 1050, actual: 1000 }]);
  });

  it('refuses a --body that is not JSON before any request', async () => {
    const run = await runCli(['requests', 'expect', '--body', '{amount:1}', '--url', 'http://127.0.0.1:1']);
    expect(run.error).toMatch(/--body must be JSON/);
  });
});

describe('sandbox trace', () => {
  it("prints a payment's requests and state changes with their causes", async () => {
    const payment = await pay({ token: undefined, card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } });
    const run = await cli('trace', payment.id);
    expect(run.exitCode, run.error).toBe(0);
    expect(run.out.split('\n')[0]).toMatch(new RegExp(`^${payment.id} {2}v1 {2}mer_sandbox {2}1050 EUR`));
    expect(run.out).toMatch(/merchant -> sandbox +POST \/v1\/payments → 200/);
    expect(run.out).toMatch(/caused by test card 424242…4242/);
    const json = JSON.parse((await cli('trace', payment.id, '--json')).out);
    expect(json.items[0].kind).toBe('request');
    const missing = await cli('trace', 'pay_nothing');
    expect(missing.exitCode).toBe(1);
    expect(missing.error).toMatch(/no payment pay_nothing/);
  });
});
