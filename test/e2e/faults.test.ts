// Fault injection end to end: a real sandbox on port 0, a fake merchant counting what arrives.
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigFlags } from '../../src/config.js';
import { verifySignature } from '../../src/signatures/signing.js';
import type { ReceivedWebhook } from '../helpers/fake-merchant.js';
import { startSandboxWithMerchant, type SandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { s2sBody, CREDS } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import type { Json } from '../helpers/json.js';

/** Each test starts its own pair, with the faults it injects. */
let env: SandboxWithMerchant | undefined;

afterEach(async () => {
  await env?.close();
  env = undefined;
});

async function start(flags: ConfigFlags, statuses: number[] = []) {
  env = await startSandboxWithMerchant({ flags: { retry: '50ms,50ms,50ms,50ms', ...flags }, merchant: { statuses } });
}

/** An approved-at-once S2S payment whose webhook goes to the fake merchant; returns its transID. */
async function pay(path = '/hook'): Promise<string> {
  const res = await env!.http.post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: env!.merchant.url + path }));
  expect(res.status).toBe(200);
  return res.json.transID;
}

const transIdOf = (w: ReceivedWebhook) => new URLSearchParams(w.body).get('transID');

/**
 * A delivery once `count` of its attempts are recorded: an attempt is recorded when its answer is
 * back from the sender thread, just after the merchant has the webhook.
 */
const withAttempts = (id: string, count: number) =>
  waitFor(async () => {
    const delivery = (await env!.http.get(`/_sandbox/deliveries/${id}`)).json;
    return delivery.attempt_log.length >= count && delivery;
  }, `${count} recorded attempt(s) of ${id}`);

describe('fault injection', () => {
  it('duplicate=2 sends three copies of the same event id, each recorded as an attempt', async () => {
    await start({ faults: 'duplicate=2' });
    await pay();
    const copies = await waitFor(() => env!.merchant.received.length >= 3 && env!.merchant.received, '3 copies');
    const eventIds = new Set(copies.map((w) => w.headers['x-sandbox-event-id']));
    expect(eventIds.size).toBe(1);
    const [delivery] = (await env!.http.get('/_sandbox/deliveries')).json.data;
    const detail = await withAttempts(delivery.id, 3);
    expect(detail.attempt_log.map((a: Json) => a.fault)).toEqual(['duplicate copy 1', 'duplicate copy 2', 'duplicate=2']);
    expect(detail.status).toBe('succeeded');
  });

  it('reorder swaps two consecutive events to the same URL', async () => {
    await start({ faults: 'reorder' });
    const first = await pay();
    const second = await pay();
    await waitFor(() => env!.merchant.received.length >= 2, 'both webhooks');
    expect(env!.merchant.received.map(transIdOf)).toEqual([second, first]);
    // Newest first: the older delivery is the one that was held back.
    const [newer, older] = (await env!.http.get('/_sandbox/deliveries')).json.data;
    expect((await withAttempts(older.id, 1)).attempt_log[0].fault).toBe(`reorder: held back, sent after ${newer.id}`);
    expect((await withAttempts(newer.id, 1)).attempt_log[0].fault).toBe(`reorder: sent before ${older.id}`);
  });

  it('fail-first=2 records two injected failures without sending, then delivers', async () => {
    await start({ faults: 'fail-first=2' });
    await pay();
    await waitFor(() => env!.merchant.received.length === 1, 'the third attempt');
    const [delivery] = (await env!.http.get('/_sandbox/deliveries')).json.data;
    const detail = await waitFor(async () => {
      const d = (await env!.http.get(`/_sandbox/deliveries/${delivery.id}`)).json;
      return d.status === 'succeeded' && d;
    }, 'delivery to succeed');
    expect(detail.attempt_log.map((a: Json) => [a.attempt, a.error_kind, a.fault])).toEqual([
      [1, 'injected', 'fail-first=2'],
      [2, 'injected', 'fail-first=2'],
      [3, null, null],
    ]);
    expect(env!.merchant.received[0]!.headers['x-sandbox-attempt']).toBe('3');
  });

  it('lost-ack delivers, ignores the 2xx and delivers again', async () => {
    await start({ faults: 'lost-ack' });
    await pay();
    const arrived = await waitFor(() => env!.merchant.received.length >= 2 && env!.merchant.received, 'a second delivery');
    expect(arrived[0]!.headers['x-sandbox-event-id']).toBe(arrived[1]!.headers['x-sandbox-event-id']);
    expect(arrived.map((w) => w.headers['x-sandbox-attempt'])).toEqual(['1', '2']);
    const [delivery] = (await env!.http.get('/_sandbox/deliveries')).json.data;
    const detail = await waitFor(async () => {
      const d = (await env!.http.get(`/_sandbox/deliveries/${delivery.id}`)).json;
      return d.status === 'succeeded' && d;
    }, 'delivery to succeed');
    expect(detail.attempt_log[0]).toMatchObject({ response_status: 200, fault: 'lost-ack' });
  });

  it('bad-signature sends a signature that does not verify with the merchant secret', async () => {
    await start({ faults: 'bad-signature' });
    await pay();
    const [w] = await waitFor(() => env!.merchant.received.length >= 1 && env!.merchant.received, 'the webhook');
    expect(w!.headers['x-sandbox-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature(w!.headers['x-sandbox-signature'] as string, CREDS.secret, w!.body)).toBe(false);
  });

  it('without faults the same webhook verifies (control for bad-signature)', async () => {
    await start({});
    await pay();
    const [w] = await waitFor(() => env!.merchant.received.length >= 1 && env!.merchant.received, 'the webhook');
    expect(verifySignature(w!.headers['x-sandbox-signature'] as string, CREDS.secret, w!.body)).toBe(true);
  });

  it('stale-timestamp sends a timestamp an hour old, signed consistently in timestamped mode', async () => {
    await start({ faults: 'stale-timestamp', signature: 'timestamped' });
    await pay();
    const [w] = await waitFor(() => env!.merchant.received.length >= 1 && env!.merchant.received, 'the webhook');
    const timestamp = Number(w!.headers['x-sandbox-timestamp']);
    const now = Math.floor(env!.sandbox.clock.now() / 1000);
    expect(now - timestamp).toBeGreaterThanOrEqual(3600);
    expect(now - timestamp).toBeLessThan(3660);
    expect(verifySignature(w!.headers['x-sandbox-signature'] as string, CREDS.secret, w!.body, 'timestamped', timestamp)).toBe(true);
  });

  it('delay holds the first attempt until the delay has passed on the sandbox clock', async () => {
    await start({ faults: 'delay=1h' });
    await pay();
    const [delivery] = (await env!.http.get('/_sandbox/deliveries')).json.data;
    const createdAt = Date.parse(delivery.created_at);
    // The worker has looked at it and held it: due one hour after it was queued, nothing sent.
    const held = await waitFor(async () => {
      const d = (await env!.http.get(`/_sandbox/deliveries/${delivery.id}`)).json;
      return d.next_attempt_at && Date.parse(d.next_attempt_at) === createdAt + 3_600_000 && d;
    }, 'the hold');
    expect(held.attempts).toBe(0);
    expect(env!.merchant.received).toHaveLength(0);
    await env!.http.post('/_sandbox/clock/advance', { duration: '1h' });
    const [w] = await waitFor(() => env!.merchant.received.length >= 1 && env!.merchant.received, 'the delayed webhook');
    expect(Number(w!.headers['x-sandbox-timestamp']) * 1000).toBeGreaterThanOrEqual(createdAt + 3_600_000 - 1000);
    const detail = await withAttempts(delivery.id, 1);
    expect(detail.attempt_log[0].fault).toBe('delay=1h');
  });

  it('a url= rule applies to that URL only', async () => {
    await start({});
    const set = await env!.http.post('/_sandbox/faults', { spec: `url=${env!.merchant.url}/flaky:duplicate=1` });
    expect(set.status).toBe(201);
    expect(set.json.data[0]).toMatchObject({ scope: 'url', target: `${env!.merchant.url}/flaky`, fault: 'duplicate', value: '1' });
    await pay('/flaky');
    await pay('/steady');
    await waitFor(() => env!.merchant.received.length >= 3, 'three requests');
    expect(env!.merchant.at('/flaky')).toHaveLength(2);
    expect(env!.merchant.at('/steady')).toHaveLength(1);
  });

  it('fail=P with the same seed fails the same attempts in two runs', async () => {
    const run = async () => {
      await start({ faults: 'fail=0.5', faultSeed: 7, retry: 'none' });
      for (let i = 0; i < 6; i++) await pay(`/p${i}`);
      const list = await waitFor(async () => {
        const data = (await env!.http.get('/_sandbox/deliveries?limit=10')).json.data as Json[];
        return data.length === 6 && data.every((d) => d.status !== 'pending') && data;
      }, 'six finished deliveries');
      const outcome = list.map((d) => [d.url.split('/').pop(), d.status]).sort();
      await env!.close();
      env = undefined;
      return outcome;
    };
    const first = await run();
    const second = await run();
    expect(first).toEqual(second);
    expect(first.some(([, s]) => s === 'failed')).toBe(true);
    expect(first.some(([, s]) => s === 'succeeded')).toBe(true);
  });

  it('a reset restarts fail=P from its seed, so each test of a CI run between resets sees the same failures', async () => {
    await start({ faults: 'fail=0.5', faultSeed: 7, retry: 'none' });
    const run = async () => {
      for (let i = 0; i < 8; i++) await pay(`/p${i}`);
      const list = await waitFor(async () => {
        const data = (await env!.http.get('/_sandbox/deliveries?limit=20')).json.data as Json[];
        return data.length === 8 && data.every((d) => d.status !== 'pending') && data;
      }, 'eight finished deliveries');
      return list.map((d) => [d.url.split('/').pop(), d.status]).sort();
    };
    const first = await run();
    expect((await env!.http.post('/_sandbox/reset', {})).status).toBe(200);
    const second = await run();
    expect(second).toEqual(first);
    expect(first.some(([, s]) => s === 'failed')).toBe(true);
    expect(first.some(([, s]) => s === 'succeeded')).toBe(true);
  });
});
