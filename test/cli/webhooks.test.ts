// `sandbox webhooks|faults|clock` through the program object against a real sandbox on port 0,
// plus one real spawn of bin/sandbox.js.
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigFlags } from '../../src/config.js';
import type { RunningServer } from '../../src/server/start-server.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import { runCli } from '../helpers/cli-harness.js';
import { api } from '../helpers/http.js';
import type { Json } from '../helpers/json.js';

let sandbox: RunningServer;
let merchant: FakeMerchant;

async function start(flags: ConfigFlags = {}, statuses: number[] = []) {
  merchant = await startFakeMerchant({ statuses });
  sandbox = await startTestServer({ retry: 'none', ...flags });
}

afterEach(async () => {
  await sandbox?.close();
  await merchant?.close();
});

async function pay(path = '/hook'): Promise<string> {
  return (await api(sandbox.url).post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: merchant.url + path }))).json.transID;
}

const finished = async (count: number) =>
  waitFor(async () => {
    const list = JSON.parse((await runCli(['webhooks', 'list', '--json', '--url', sandbox.url])).out) as Json[];
    return list.length >= count && list.every((d) => d.status !== 'pending') && list;
  }, `${count} finished deliveries`);

describe('sandbox webhooks', () => {
  beforeEach(() => start());

  it('list --json prints an array with id, event_id, event, url, status and attempts', async () => {
    const transID = await pay();
    const [d] = await finished(1);
    expect(d).toMatchObject({ event: 'payment.authorized', url: `${merchant.url}/hook`, status: 'succeeded', attempts: 1 });
    expect(d.id).toMatch(/^whd_/);
    expect(d.event_id).toMatch(/^evt_/);
    expect(new URLSearchParams(merchant.received[0]!.body).get('transID')).toBe(transID);
  });

  it('list prints a table with the event, status, attempts and last response code', async () => {
    await pay();
    const [d] = await finished(1);
    const { out } = await runCli(['webhooks', 'list', '--url', sandbox.url]);
    const [header, row] = out.split('\n');
    expect(header).toMatch(/^ID\s+EVENT\s+EVENT ID\s+URL\s+STATUS\s+ATTEMPTS\s+LAST\s+NEXT ATTEMPT$/);
    expect(row).toContain(d.id);
    expect(row).toMatch(/payment\.authorized .*succeeded\s+1\s+200\s+-$/);
  });

  it('list --status filters, and a bad --status is a clear error', async () => {
    await pay();
    await finished(1);
    expect(JSON.parse((await runCli(['webhooks', 'list', '--json', '--status', 'failed', '--url', sandbox.url])).out)).toEqual([]);
    const bad = await runCli(['webhooks', 'list', '--status', 'done', '--url', sandbox.url]);
    expect(bad.error).toMatch(/status is invalid: expected pending, succeeded or failed.*\(400 parameter_invalid\)/);
  });

  it('show prints the exact request headers and body and every attempt', async () => {
    await pay();
    const [d] = await finished(1);
    const { out } = await runCli(['webhooks', 'show', d.id, '--url', sandbox.url]);
    expect(out).toContain('Request (as sent by attempt 1)');
    expect(out).toMatch(/x-sandbox-signature: sha256=[0-9a-f]{64}/);
    expect(out).toContain(`x-sandbox-delivery-id: ${d.id}`);
    expect(out).toContain('order_status=25');
    expect(out).toMatch(/#1 \S+ \S+ 200 [\d.]+ms "ok"/);
    expect(out).not.toContain('signature check');
    const json = JSON.parse((await runCli(['webhooks', 'show', d.id, '--url', sandbox.url, '--json'])).out);
    expect(json.attempt_log[0].signature_check).toBeNull();
  });

  it('show prints the signature diagnosis of each attempt the handler refused, in full once per cause', async () => {
    await sandbox.close();
    await merchant.close();
    // A handler whose signature check is broken: it refuses every attempt with 401.
    await start({ retry: '20ms,20ms' }, [401, 401, 401]);
    await pay();
    const [d] = await finished(1);
    const { out } = await runCli(['webhooks', 'show', d.id, '--url', sandbox.url]);
    expect(out).toMatch(
      new RegExp(
        `#1 \\S+ \\S+ 401 [\\d.]+ms "nope" answered 401\n {4}signature check \\(valid\\): signature valid: the body and headers are exactly what the sandbox sent in attempt 1 of delivery ${d.id}, signed with merchant mer_sandbox's webhook secret.*; so the handler computes something else: sandbox verify with the headers, raw body and secret it had says what differs\n`,
      ),
    );
    expect(out).toMatch(/#2 \S+ \S+ 401 [\d.]+ms "nope" answered 401\n {4}signature check \(valid\): as for attempt 1\n/);
    expect(out).toMatch(/#3 \S+ \S+ 401 [\d.]+ms "nope" answered 401\n {4}signature check \(valid\): as for attempt 1$/);
    // --json gives every refused attempt its own diagnosis.
    const json = JSON.parse((await runCli(['webhooks', 'show', d.id, '--url', sandbox.url, '--json'])).out);
    expect(json.attempt_log.map((a: { signature_check: { cause: string; message: string } | null }) => a.signature_check?.cause)).toEqual([
      'valid',
      'valid',
      'valid',
    ]);
    for (const [i, a] of (json.attempt_log as Array<{ signature_check: { message: string } }>).entries())
      expect(a.signature_check.message).toContain(`attempt ${i + 1} of delivery ${d.id}`);
  });

  it('show of an unknown id says so', async () => {
    const { error } = await runCli(['webhooks', 'show', 'whd_nope', '--url', sandbox.url]);
    expect(error).toBe('no delivery whd_nope; GET /_sandbox/deliveries lists them (404 resource_missing)');
  });

  it('retry-failed --timeout past what a timer can wait (24 days) is refused before anything is requeued', async () => {
    const { error } = await runCli(['webhooks', 'retry-failed', '--timeout', '30d', '--url', sandbox.url]);
    expect(error).toBe('--timeout must be at most 24d, got "30d"; give a duration like 60s or 5m');
    expect((await api(sandbox.url).get('/_sandbox/deliveries?status=pending')).json.data).toEqual([]);
  });

  it('replay sends the same event id again as a new manual delivery with a fresh signature', async () => {
    await pay();
    const [original] = await finished(1);
    const { out } = await runCli(['webhooks', 'replay', original.id, '--json', '--url', sandbox.url]);
    const replay = JSON.parse(out);
    expect(replay.id).not.toBe(original.id);
    expect(replay).toMatchObject({ event_id: original.event_id, manual: true, url: original.url });
    const [, second] = await waitFor(() => merchant.received.length >= 2 && merchant.received, 'the replay');
    expect(second!.headers['x-sandbox-event-id']).toBe(original.event_id);
    expect(second!.headers['x-sandbox-delivery-id']).toBe(replay.id);
    expect(second!.body).toBe(merchant.received[0]!.body);
  });

  it('replay by event id with --to sends it to another URL', async () => {
    await pay();
    const [original] = await finished(1);
    const { out } = await runCli(['webhooks', 'replay', original.event_id, '--to', `${merchant.url}/elsewhere`, '--url', sandbox.url]);
    expect(out).toMatch(new RegExp(`^replaying payment.authorized ${original.event_id} as whd_\\S+ -> ${merchant.url}/elsewhere`));
    const [w] = await waitFor(() => merchant.at('/elsewhere').length === 1 && merchant.at('/elsewhere'), 'the replay at /elsewhere');
    expect(w!.headers['x-sandbox-event-id']).toBe(original.event_id);
  });

  it('a manual replay that fails is not retried by itself', async () => {
    await sandbox.close();
    await merchant.close();
    await start({ retry: '20ms,20ms,20ms' }, [200, 500]);
    await pay();
    const [original] = await finished(1);
    await runCli(['webhooks', 'replay', original.id, '--url', sandbox.url]);
    const list = await finished(2);
    expect(list[0]).toMatchObject({ manual: true, status: 'failed', attempts: 1, last_response_status: 500 });
  });

  it('prints one clear line when no sandbox answers', async () => {
    const { error } = await runCli(['webhooks', 'list', '--url', 'http://127.0.0.1:9']);
    expect(error).toBe('no sandbox answers at http://127.0.0.1:9; start one with `npx sandbox start`');
  });
});

describe('sandbox webhooks retry-failed', () => {
  it('requeues failed deliveries and they are delivered once the receiver is back', async () => {
    await start({}, [500, 500]);
    await pay();
    await pay();
    const failed = await finished(2);
    expect(failed.map((d) => d.status)).toEqual(['failed', 'failed']);
    const { out, err, exitCode } = await runCli(['webhooks', 'retry-failed', '--since', '1h', '--url', sandbox.url]);
    expect(out).toBe('requeued 2 failed deliveries: 2 delivered, 0 failed again');
    expect(err).toBe('');
    expect(exitCode).toBe(0);
    expect(merchant.received).toHaveLength(4);
  });

  it('shows a progress bar on stderr when there are more than 20, and none with --json', async () => {
    await start({}, Array(42).fill(500));
    for (let i = 0; i < 21; i++) await pay();
    await finished(21);
    const { out, err, exitCode } = await runCli(['webhooks', 'retry-failed', '--url', sandbox.url]);
    expect(out).toBe('requeued 21 failed deliveries: 0 delivered, 21 failed again');
    // Everything failed again: exit 1, as `sandbox wait` does when nothing arrives.
    expect(exitCode).toBe(1);
    expect(err).toMatch(/^retrying -+ 0\/21/);
    expect(err.split('\n').pop()).toMatch(/^retrying #{30} 21\/21 {2}0 delivered, 21 failed$/);
    const json = await runCli(['webhooks', 'retry-failed', '--json', '--url', sandbox.url]);
    expect(JSON.parse(json.out)).toMatchObject({ count: 21, succeeded: 21, failed: 0, pending: 0 });
    expect(json.err).toBe('');
    expect(json.exitCode).toBe(0);
  });
});

describe('sandbox faults and clock', () => {
  beforeEach(() => start());

  it('faults set, list and clear', async () => {
    const set = await runCli([
      'faults',
      'set',
      'duplicate=1;url=http://127.0.0.1:3000/hook:fail-first=2',
      '--seed',
      '5',
      '--url',
      sandbox.url,
    ]);
    expect(set.out).toMatch(
      /^ID\s+RULE\s+SET BY\nflt_\S+\s+duplicate=1\s+control API\nflt_\S+\s+url=http:\/\/127\.0\.0\.1:3000\/hook:fail-first=2\s+control API\nseed 5$/,
    );
    const list = JSON.parse((await runCli(['faults', 'list', '--json', '--url', sandbox.url])).out);
    expect(list.data.map((r: Json) => r.spec)).toEqual(['duplicate=1', 'url=http://127.0.0.1:3000/hook:fail-first=2']);
    expect((await runCli(['faults', 'clear', list.data[0].id, '--url', sandbox.url])).out).toBe('deleted 1 fault rule');
    expect((await runCli(['faults', 'clear', '--url', sandbox.url])).out).toBe('deleted 1 fault rule');
    expect((await runCli(['faults', 'list', '--url', sandbox.url])).out).toBe('no fault rules (seed 5)');
  });

  it('faults set with a bad spec names the problem', async () => {
    const { error } = await runCli(['faults', 'set', 'duplicate=many', '--url', sandbox.url]);
    expect(error).toBe(
      'spec has "duplicate=many"; write duplicate=N with N a whole number from 1 to 10 (extra copies of each attempt) (400 parameter_invalid)',
    );
  });

  it('clock advance moves sandbox time', async () => {
    const before = sandbox.clock.now();
    const { out } = await runCli(['clock', 'advance', '2h', '--url', sandbox.url]);
    expect(out).toMatch(/^sandbox time is now \S+Z, 2h ahead of the wall clock \(\d+ timed jobs? ran\)$/);
    expect(sandbox.clock.now() - before).toBeGreaterThanOrEqual(7_200_000);
  });
});

describe('bin/sandbox.js', () => {
  beforeEach(() => start());

  it('webhooks list --json works from a real process (SANDBOX_URL)', async () => {
    await pay();
    await finished(1);
    // Async spawn would be nicer, but the sandbox runs in this process: give it the event loop.
    const child = await new Promise<{ status: number | string | null; stdout: string; stderr: string }>((resolve) => {
      import('node:child_process').then(({ execFile }) =>
        execFile(
          process.execPath,
          ['bin/sandbox.js', 'webhooks', 'list', '--json'],
          { env: { ...process.env, SANDBOX_URL: sandbox.url }, timeout: 20_000 },
          (err, stdout, stderr) => resolve({ status: err ? (err.code ?? 1) : 0, stdout, stderr }),
        ),
      );
    });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)[0]).toMatchObject({ event: 'payment.authorized', status: 'succeeded' });
  });

  it('exits 1 with one line when no sandbox answers', () => {
    const child = spawnSync(process.execPath, ['bin/sandbox.js', 'webhooks', 'list', '--url', 'http://127.0.0.1:9'], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    expect(child.status).toBe(1);
    expect(child.stderr.trim()).toBe('sandbox: no sandbox answers at http://127.0.0.1:9; start one with `npx sandbox start`');
  });
});
