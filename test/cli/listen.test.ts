// `sandbox listen` in-process against a real sandbox: a live tail, filtered, forwarding re-signed events.
import { afterEach, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { verifySignature } from '../../src/signatures/signing.js';
import { buildProgram } from '../../src/cli/program.js';
import type { CliIo } from '../../src/cli/io.js';
import { matchesEvents } from '../../src/cli/listen.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import { api } from '../helpers/http.js';
import '../helpers/cli-harness.js';

let sandbox: RunningServer;
let merchant: FakeMerchant;
afterEach(async () => {
  await sandbox?.close();
  await merchant?.close();
});

/** Starts `sandbox listen ...` and resolves once it is subscribed. */
async function listen(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => void out.push(t), err: (t) => void err.push(t) };
  const done = buildProgram(io).parseAsync(['node', 'sandbox', 'listen', '--url', sandbox.url, ...args]);
  await waitFor(() => err.some((line) => line.startsWith('listening to')), 'the subscription');
  return { out, err, done };
}

async function pay(ccno: string) {
  await api(sandbox.url).post('/api/s2s', s2sBody({ ccno, webhook_url: `${merchant.url}/hook` }));
}

it('tails events and attempts, and forwards each event re-signed with --secret', async () => {
  merchant = await startFakeMerchant();
  sandbox = await startTestServer();
  const run = await listen(['--forward-to', `${merchant.url}/forwarded`, '--secret', 'whsec_local', '--count', '2']);
  await pay('4242424242424242');
  await pay('4000000000000002');
  await run.done;
  const events = run.out.filter((line) => / forwarded -> /.test(line));
  expect(events[0]).toMatch(new RegExp(`^\\S+ payment\\.authorized evt_\\S+ \\d+  forwarded -> ${merchant.url}/forwarded 200$`));
  expect(events[1]).toMatch(/ payment\.declined evt_\S+ \d+ {2}forwarded -> /);
  const forwarded = merchant.at('/forwarded');
  expect(forwarded).toHaveLength(2);
  expect(verifySignature(forwarded[0]!.headers['x-sandbox-signature'] as string, 'whsec_local', forwarded[0]!.body)).toBe(true);
  expect(forwarded[0]!.headers['x-sandbox-event-type']).toBe('payment.authorized');
  // The same bytes the sandbox delivered to the webhook_url itself.
  await waitFor(() => merchant.at('/hook').length === 2, 'the direct webhooks');
  expect(merchant.at('/hook').map((w) => w.body)).toContain(forwarded[0]!.body);
});

it('--events filters by type and --json prints one object per line', async () => {
  merchant = await startFakeMerchant();
  sandbox = await startTestServer();
  const run = await listen(['--events', 'payment.declined', '--json', '--count', '1']);
  await pay('4242424242424242');
  await pay('4000000000000002');
  await run.done;
  const lines = run.out.map((line) => JSON.parse(line));
  // The stream names the event `event`, as every control event does (never `type`).
  expect(lines.every((l) => l.event === 'payment.declined' && !('type' in l))).toBe(true);
  expect(lines.some((l) => l.kind === 'event.created')).toBe(true);
});

it('--count 1 prints one event and the first attempt of each of its webhooks, then stops', async () => {
  merchant = await startFakeMerchant();
  sandbox = await startTestServer();
  const run = await listen(['--count', '1']);
  await pay('4242424242424242');
  await run.done;
  expect(run.out).toEqual([
    expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} payment\.authorized evt_\S+ \d+$/),
    expect.stringMatching(new RegExp(`^\\S+ {3}webhook payment\\.authorized evt_\\S+ -> ${merchant.url}/hook #1 200 \\S+ms succeeded$`)),
  ]);
});

it('--count 1 stops at the event when it has no webhook to wait for', async () => {
  merchant = await startFakeMerchant();
  sandbox = await startTestServer();
  const run = await listen(['--count', '1', '--json']);
  await fetch(`${sandbox.url}/_sandbox/events/trigger`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"type":"payment.authorized"}',
  });
  await run.done;
  expect(run.out.map((line) => JSON.parse(line))).toMatchObject([{ kind: 'event.created', event: 'payment.authorized' }]);
});

it('matches exact types and family wildcards', () => {
  expect(matchesEvents([], 'refund.created')).toBe(true);
  expect(matchesEvents(['payment.*'], 'payment.captured')).toBe(true);
  expect(matchesEvents(['payment.*'], 'refund.created')).toBe(false);
  expect(matchesEvents(['refund.created', 'refund.failed'], 'refund.failed')).toBe(true);
});
