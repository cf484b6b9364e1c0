// Merchants on demand over real sockets: each created merchant's webhooks reach its own URL signed
// with its own secret, a merchant's reset waits for its own webhooks in flight and no one else's,
// a created merchant survives a restart on the same database file, and the start banner lists the
// seeded merchants with a count of the created ones.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kleur from 'kleur';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { banner } from '../../src/cli/start.js';
import type { RunningServer } from '../../src/server/start-server.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { api } from '../helpers/http.js';
import { s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import type { Json } from '../helpers/json.js';

const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('webhooks of created merchants', () => {
  const env = useSandboxWithMerchant({ flags: { retry: 'none' } });

  it("go to each merchant's own URL, signed with its own secret, and its events list only its own", async () => {
    const workers: Array<{ api_key: string; webhook_secret: string }> = [];
    for (const n of [1, 2, 3]) workers.push((await env.http.post('/_sandbox/merchants', { name: `Worker ${n}` })).json);
    const paid = await Promise.all(
      workers.map(async (m, n) => {
        const res = await env.http.post(
          '/v1/payments',
          { amount: 1000, currency: 'EUR', token: 'tok_visa', reference: 'same', webhook_url: `${env.merchant.url}/worker-${n}` },
          { authorization: `Bearer ${m.api_key}` },
        );
        expect(res.status, res.text).toBe(200);
        return res.json.id as string;
      }),
    );
    await waitFor(() => workers.every((_, n) => env.merchant.at(`/worker-${n}`).length >= 2), 'two webhooks per worker');
    workers.forEach((m, n) => {
      for (const hook of env.merchant.at(`/worker-${n}`)) {
        expect(hook.headers['x-sandbox-signature']).toBe(sign(m.webhook_secret, hook.body));
        expect(JSON.parse(hook.body).data.payment_id).toBe(paid[n]);
      }
    });
  });
});

describe('a scoped reset and webhooks in flight', () => {
  // The receiver holds every webhook until the test lets them go, and answers at once from then on:
  // a /v1/ payment sends two, and the second can come after the release (a held attempt times out
  // after 3 s, and with --retry none never succeeds).
  const waiting: Array<() => void> = [];
  let released = false;
  const releaseAll = () => {
    released = true;
    for (const release of waiting.splice(0)) release();
  };
  const env = useSandboxWithMerchant({
    each: true,
    flags: { retry: 'none', webhookTimeout: '3s' },
    merchant: { answer: () => (released ? 200 : new Promise<number>((resolve) => waiting.push(() => resolve(200)))) },
  });
  beforeEach(() => {
    released = false;
  });
  afterEach(releaseAll);

  const pay = (m: { api_key: string }, path: string) =>
    env.http.post(
      '/v1/payments',
      { amount: 1000, currency: 'EUR', token: 'tok_visa', webhook_url: `${env.merchant.url}${path}` },
      { authorization: `Bearer ${m.api_key}` },
    );

  it("never waits for another merchant's webhooks: it answers while they are still in flight", async () => {
    const [a, b] = [(await env.http.post('/_sandbox/merchants')).json, (await env.http.post('/_sandbox/merchants')).json];
    expect((await pay(b, '/b')).status).toBe(200);
    await waitFor(() => env.merchant.at('/b').length > 0, "b's webhook at the receiver");
    const res = await env.http.post('/_sandbox/reset', { merchant: a.id });
    expect(res.status, res.text).toBe(200);
    // b's attempt is still unanswered: nothing recorded yet, and it goes on to succeed.
    const deliveries = async () => (await env.http.get(`/_sandbox/deliveries?merchant=${b.id}`)).json.data;
    expect((await deliveries()).map((d: Json) => d.attempts)).toEqual([0, 0]);
    releaseAll();
    await waitFor(
      async () => (await deliveries()).every((d: Json) => d.status === 'succeeded') && (await deliveries()).length > 0,
      "b's webhooks delivered",
    );
  });

  it("waits for its own merchant's webhooks in flight before emptying its state", async () => {
    const a = (await env.http.post('/_sandbox/merchants')).json;
    expect((await pay(a, '/a')).status).toBe(200);
    await waitFor(() => env.merchant.at('/a').length > 0, "a's webhook at the receiver");
    const seen: string[] = [];
    const unsubscribe = env.sandbox.services.activity.subscribe((item) => {
      if (item.kind === 'delivery.attempted' || item.kind === 'state.reset') seen.push(item.kind);
    });
    // Let the webhook go only once the reset is waiting for it.
    const { worker } = env.sandbox;
    const busyFor = worker.busyFor.bind(worker);
    let asked = false;
    worker.busyFor = (merchantId) => {
      asked = true;
      return busyFor(merchantId);
    };
    const reset = env.http.post('/_sandbox/reset', { merchant: a.id });
    await waitFor(() => asked, 'the reset to wait for webhooks in flight');
    releaseAll();
    expect((await reset).status).toBe(200);
    unsubscribe();
    expect(seen.slice(-2)).toEqual(['delivery.attempted', 'state.reset']);
  });
});

describe('a created merchant and a restart', () => {
  let dir: string | undefined;
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is still there after a restart on the same database file, authenticates, and keeps its payments', async () => {
    dir = mkdtempSync(join(tmpdir(), 'paysandbox-merchants-'));
    const db = join(dir, 'sandbox.db');
    server = await startTestServer({ db, retry: 'none' });
    const m = (await api(server.url).post('/_sandbox/merchants', { name: 'Kept' })).json;
    const first = await api(server.url).post(
      '/api/s2s',
      s2sBody({ terNO: m.terNO, public_key: m.public_key, reference: 'before', ccno: '4242424242424242' }),
    );
    expect(first.status).toBe(200);
    await server.close();

    server = await startTestServer({ db, retry: 'none' });
    const http = api(server.url);
    expect((await http.get(`/_sandbox/merchants/${m.id}`)).json).toEqual(m);
    expect(
      (await http.post('/api/s2s', s2sBody({ terNO: m.terNO, public_key: m.public_key, reference: 'after', ccno: '4242424242424242' })))
        .json.order_status,
    ).toBe('25');
    // Its reference is still taken on its own terminal after the restart.
    expect((await http.post('/api/s2s', s2sBody({ terNO: m.terNO, public_key: m.public_key, reference: 'before' }))).status).toBe(409);
    const list = await http.get('/v1/payments', { authorization: `Bearer ${m.api_key}` });
    expect(list.status).toBe(200);
    // The next merchant gets the next terminal, not the kept one's.
    expect((await http.post('/_sandbox/merchants')).json.terNO).toBe(m.terNO + 1);
    // The banner lists the seeded merchants' credentials and counts the created ones.
    kleur.enabled = false;
    const text = banner(server);
    expect(text).toContain('Sandbox Merchant (mer_sandbox)');
    expect(text).not.toContain(m.api_key);
    expect(text).toMatch(/2 merchants created on demand: sandbox merchants list/);
  });
});
