// `sandbox wait` in-process against a real sandbox: exit 0 when the delivery is there, 1 after the
// timeout with what it saw, and one-line errors for bad flags.
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/domain/event-types.js';
import { runCli } from '../helpers/cli-harness.js';
import { startFakeMerchant } from '../helpers/fake-merchant.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { waitFor } from '../helpers/wait-for.js';

const env = useSandboxWithMerchant({ each: true, flags: { retry: 'none' } });

/** Runs `sandbox wait --url <sandbox> ...`, capturing output and the exit code it sets. */
const wait = (args: string[]) => runCli(['wait', '--url', env.sandbox.url, ...args]);

async function pay(ccno: string, webhookPath = '/hook') {
  return (await env.http.post('/api/s2s', s2sBody({ ccno, webhook_url: env.merchant.url + webhookPath }))).json as { transID: string };
}

const settled = (status: string) =>
  waitFor(() => env.sandbox.store.deliveries.list({ limit: 10 }).some((d) => d.status === status), `a ${status} delivery`);

describe('sandbox wait', () => {
  it('exits 0 and names the delivery once it succeeded', async () => {
    await pay('4242424242424242');
    await settled('succeeded');
    const run = await wait(['--event', 'payment.authorized', '--timeout', '2s']);
    expect(run.exitCode).toBe(0);
    expect(run.out).toMatch(
      new RegExp(`^found: whd_\\w+ payment\\.authorized -> ${env.merchant.url}/hook succeeded after 1 attempt \\(last answer 200\\)$`),
    );
  });

  it('waits for a delivery that happens while it polls', async () => {
    const running = wait(['--event', 'payment.authorized', '--timeout', '10s']);
    await pay('4242424242424242');
    const run = await running;
    expect(run.exitCode).toBe(0);
    expect(run.out).toMatch(/^found: .* succeeded/);
  });

  it('exits 1 at once, not after the timeout, when the only delivery of the event failed for good, listing it', async () => {
    const failing = await startFakeMerchant({ fallback: 500 });
    try {
      await env.http.post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: `${failing.url}/down` }));
      await settled('failed');
      const started = Date.now();
      const run = await wait(['--event', 'payment.authorized', '--timeout', '60s']);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(run.exitCode).toBe(1);
      expect(run.err).toMatch(
        /^no succeeded delivery of payment\.authorized will come: every one failed for good \(no retries left\); deliveries of payment\.authorized, newest first \(1\):\n/,
      );
      expect(run.err).toMatch(
        new RegExp(`whd_\\w+ payment\\.authorized -> ${failing.url}/down failed after 1 attempt \\(last answer 500\\)`),
      );

      // --status failed is what it is waiting for now.
      const failed = await wait(['--event', 'payment.authorized', '--status', 'failed', '--timeout', '1s']);
      expect(failed.exitCode).toBe(0);
    } finally {
      await failing.close();
    }
  });

  it('when no delivery of the event exists, it lists the deliveries of any event', async () => {
    await pay('4000000000000002');
    await settled('succeeded');
    const run = await wait(['--event', 'payment.authorized', '--timeout', '200ms']);
    expect(run.exitCode).toBe(1);
    expect(run.err).toMatch(/deliveries of any event, newest first \(1\):\n {2}whd_\w+ payment\.declined -> /);
  });

  it('--to only counts deliveries to that webhook URL', async () => {
    await pay('4242424242424242', '/elsewhere');
    await settled('succeeded');
    const miss = await wait(['--event', 'payment.authorized', '--to', `${env.merchant.url}/hook`, '--timeout', '200ms']);
    expect(miss.exitCode).toBe(1);
    expect(miss.err).toMatch(/deliveries of any event/);
    const hit = await wait(['--event', 'payment.authorized', '--to', `${env.merchant.url}/elsewhere`, '--timeout', '1s']);
    expect(hit.exitCode).toBe(0);
  });

  it('--status any is satisfied by a queued delivery, and --json prints the delivery', async () => {
    await pay('4242424242424242');
    const run = await wait(['--event', 'payment.authorized', '--status', 'any', '--json', '--timeout', '1s']);
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({ found: true, delivery: { event: 'payment.authorized', url: `${env.merchant.url}/hook` } });
  });

  it('refuses a misspelt event at once, naming the closest one, instead of waiting out the timeout', async () => {
    const started = Date.now();
    const run = await wait(['--event', 'payment.authorised', '--timeout', '60s']);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.exitCode).toBe(1);
    // The list is the whole catalogue, in its order (src/domain/event-types.ts).
    expect(run.error).toBe(
      `--event "payment.authorised" is not an event name; did you mean payment.authorized? use one of: ${Object.keys(EVENT_TYPES).join(', ')}`,
    );
  });

  it.each([
    [['--event', 'payment.authorized', '--timeout', 'soon'], /--timeout must be a duration like 30s or 2m, got "soon"/],
    [['--event', 'payment.authorized', '--status', 'done'], /--status must be succeeded, failed or any, got "done"/],
    [[], /^give --event TYPE to wait for a webhook, or --ready-file FILE to wait for the sandbox started with --ready-file FILE$/],
  ])('refuses %j with one line', async (args, message) => {
    const run = await wait(args);
    expect(run.exitCode).toBe(1);
    expect(run.error).toMatch(message);
  });

  it('says so when no sandbox answers', async () => {
    const run = await runCli(['wait', '--url', 'http://127.0.0.1:9', '--event', 'payment.authorized']);
    expect(run.error).toMatch(/^no sandbox answers at http:\/\/127\.0\.0\.1:9/);
  });
});
