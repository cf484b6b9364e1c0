// `sandbox tokens script|show|clear` and `sandbox clock advance --report` (issue 33): a token's
// scripted future from the command line, and a jump's report that exits 1 when the handler of a
// delivery it caused did not take it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { startTestServer } from '../helpers/test-sandbox.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { runCli } from '../helpers/cli-harness.js';
import { api } from '../helpers/http.js';

let sandbox: RunningServer;
let merchant: FakeMerchant;
beforeAll(async () => {
  sandbox = await startTestServer({ retry: 'none' });
  merchant = await startFakeMerchant({ answer: (r) => (r.path === '/broken' ? 500 : 200) });
});
afterAll(async () => {
  await sandbox.close();
  await merchant.close();
});

const cli = (...args: string[]) => runCli([...args, '--url', sandbox.url]);
const KEY = { authorization: 'Bearer sk_test_sandbox' };

it('scripts, shows and clears a token; an unknown outcome is refused before anything is sent', async () => {
  const token = (
    await api(sandbox.url).post('/v1/tokens', { card: { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvc: '123' } }, KEY)
  ).json.id;
  const scripted = await cli('tokens', 'script', token, 'approve', 'insufficient_funds');
  expect(scripted.out).toBe(`token ${token}: the next 2 charges approve, insufficient_funds; then its card's own outcome`);
  expect(JSON.parse((await cli('tokens', 'show', token, '--json')).out).outcomes).toEqual(['approve', 'insufficient_funds']);
  expect((await cli('tokens', 'script', token, 'maybe')).error).toContain('outcome "maybe" is not one of approve, card_declined');
  expect((await cli('tokens', 'show', 'tok_nothing')).error).toContain('merchant mer_sandbox has no token tok_nothing');
  expect((await cli('tokens', 'clear', token)).out).toBe(
    `dropped 2; token ${token} has no scripted outcomes: its card's own outcome applies`,
  );
});

it('clock advance --report prints each job, event and first attempt, and exits 1 when a delivery failed', async () => {
  const hold = (path: string) =>
    api(sandbox.url).post(
      '/v1/payments',
      { amount: 500, currency: 'EUR', token: 'tok_visa', capture: false, webhook_url: `${merchant.url}${path}` },
      KEY,
    );
  const good = (await hold('/hooks')).json.id;
  const ok = await cli('clock', 'advance', '8d', '--report', '--wait', '5s');
  expect(ok.error).toBeUndefined();
  expect(ok.exitCode).toBe(0);
  expect(ok.out).toMatch(
    new RegExp(
      `job payment.lapse ${good}\\n  event payment.expired evt_\\w+ \\(${good}\\)\\n    delivery whd_\\w+ -> ${merchant.url}/hooks: 200 in \\d+ms`,
    ),
  );
  expect(ok.out).toContain('1 step, 0 scripted outcomes taken, 1 event, 1 delivery (0 failed, 0 unanswered)');
  const bad = (await hold('/broken')).json.id;
  const failed = await cli('clock', 'advance', '8d', '--report', '--json');
  const report = JSON.parse(failed.out).report;
  expect(report.steps[0]).toMatchObject({ job: 'payment.lapse', subject: bad });
  expect(report.steps[0].events[0].deliveries[0].first_attempt).toMatchObject({ ok: false, status: 500, answer: 'nope' });
  expect(report.failed).toBe(1);
  expect(failed.exitCode).toBe(1);
});

it('clock advance refuses a bad --wait, --wait without --report, and a negative or absurd duration, naming each, and the clock stays', async () => {
  const offset = async () => (await api(sandbox.url).get('/_sandbox/clock')).json.offset_ms;
  const before = await offset();
  const cases: Array<[string[], string]> = [
    [['30d', '--report', '--wait', 'soon'], 'wait must be a duration'],
    [['30d', '--report', '--wait', '1h'], 'at most 5m'],
    [['30d', '--wait', '5s'], '--wait is for --report'],
    [['-30d', '--report'], 'only moves forward'],
    [['3651d', '--report'], 'at most 3650d'],
  ];
  for (const [args, says] of cases) {
    const refused = await cli('clock', 'advance', ...args);
    expect(refused.exitCode, args.join(' ')).toBe(1);
    expect(refused.error, args.join(' ')).toContain(says);
  }
  expect(await offset()).toBe(before);
});
