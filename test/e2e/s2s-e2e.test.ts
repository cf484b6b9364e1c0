// The S2S card flow over real sockets: the real server on port 0, the HTML form submitted as a
// browser would, and a fake merchant receiving the signed webhook; retries; a restart with a
// delivery still pending.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConfigFlags } from '../../src/config.js';
import { hmacHex, verifySignature } from '../../src/signatures/signing.js';
import type { RunningServer } from '../../src/server/start-server.js';
import { startFakeMerchant } from '../helpers/fake-merchant.js';
import { api } from '../helpers/http.js';
import { startSandboxWithMerchant, useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { s2sBody, CREDS, startTestServer } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const SPEC_6_1_FIELDS = ['bill_currency', 'transID', 'mop', 'ccno', 'reference', 'order_status', 'bill_amt', 'status'];

function start(flags: ConfigFlags = {}): Promise<RunningServer> {
  return startTestServer({ retry: '50ms,50ms,50ms', ...flags });
}

async function pay(server: RunningServer, overrides: Record<string, unknown>) {
  const res = await api(server.url).post('/api/s2s', s2sBody(overrides));
  expect(res.status).toBe(200);
  return res.json as Record<string, string>;
}

/** Does what a customer's browser does: loads authurl, fills the form, submits it (no redirect following). */
async function completePage(authurl: string, fields: Record<string, string>) {
  const { origin, pathname, search } = new URL(authurl);
  const browser = api(origin);
  const page = await browser.get(pathname + search);
  expect(page.status).toBe(200);
  const action = /<form[^>]*method="post"[^>]*action="([^"]+)"/.exec(page.text)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
  expect(action).toBeDefined();
  expect(csrf).toBeDefined();
  const target = new URL(action!, authurl);
  return browser.postForm(target.pathname + target.search, { csrf: csrf!, ...fields });
}

const attemptsOf = (server: RunningServer, transID: string) =>
  server.db
    .prepare(`SELECT a.attempt, a.response_status AS responseStatus, a.error_kind AS errorKind, d.status, d.id AS deliveryId FROM delivery_attempts a
      JOIN deliveries d ON d.id = a.delivery_id JOIN events e ON e.id = d.event_id WHERE e.resource_id = ? ORDER BY a.id`)
    .all(transID) as Array<{
    attempt: number;
    responseStatus: number | null;
    errorKind: string | null;
    status: string;
    deliveryId: string;
  }>;

describe('S2S card payment end to end', () => {
  const env = useSandboxWithMerchant({ flags: { retry: '50ms,50ms,50ms' } });

  it('approves through the OTP form and delivers the signed spec §6.1 webhook', async () => {
    const body = await pay(env.sandbox, {
      reference: 'e2e_ok',
      webhook_url: `${env.merchant.url}/hooks/ok`,
      return_url: 'https://shop.example/return',
    });
    expect(body.status).toBe('Pending');
    expect(body.authurl.startsWith(`${env.sandbox.url}/authenticate/`)).toBe(true);
    expect(body.authstatus.startsWith(`${env.sandbox.url}/api/s2s/status/`)).toBe(true);

    const done = await completePage(body.authurl, { otp: '123456', action: 'submit' });
    expect(done.status).toBe(303);
    const back = new URL(done.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe('https://shop.example/return');
    expect(Object.fromEntries(back.searchParams)).toEqual({
      transID: body.transID,
      reference: 'e2e_ok',
      status: 'Test Approved',
      order_status: '25',
    });

    const [hook] = await waitFor(
      () => (env.merchant.at('/hooks/ok').length ? env.merchant.at('/hooks/ok') : undefined),
      'the approval webhook',
    );
    expect(hook!.method).toBe('POST');
    expect(hook!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const fields = Object.fromEntries(new URLSearchParams(hook!.body));
    for (const field of SPEC_6_1_FIELDS) expect(fields).toHaveProperty(field);
    expect(fields).toMatchObject({
      transID: body.transID,
      reference: 'e2e_ok',
      order_status: '25',
      status: 'Test Approved',
      bill_amt: '10.50',
      bill_currency: 'EUR',
      mop: 'VISA',
      ccno: '400000XXXXXX3220',
    });

    // GitHub's scheme: sha256=<hex HMAC-SHA256 of the raw body> with the merchant's secret.
    const signature = hook!.headers['x-sandbox-signature'] as string;
    expect(signature).toBe(`sha256=${hmacHex(CREDS.secret, hook!.body)}`);
    expect(verifySignature(signature, CREDS.secret, hook!.body)).toBe(true);
    expect(verifySignature(signature, CREDS.other.secret, hook!.body)).toBe(false);
    expect(hook!.headers['x-sandbox-event-id']).toMatch(/^evt_/);
    expect(hook!.headers['x-sandbox-delivery-id']).toMatch(/^whd_/);
    expect(hook!.headers['x-sandbox-attempt']).toBe('1');
    expect(Math.abs(Number(hook!.headers['x-sandbox-timestamp']) - Date.now() / 1000)).toBeLessThan(60);

    const status = (await env.http.get(new URL(body.authstatus).pathname)).json;
    expect(status).toMatchObject({ transID: body.transID, order_status: '25', status: 'Test Approved' });
    expect(env.merchant.at('/hooks/ok')).toHaveLength(1);
  });

  it('records the connecting address as bill_ip, whatever the body says', async () => {
    const body = await pay(env.sandbox, { bill_ip: '203.0.113.66', webhook_url: `${env.merchant.url}/hooks/ip` });
    expect(env.sandbox.store.transactions.get(body.transID)!.billIp).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  });

  it('declines on OTP 000000 and delivers Test Declined (24)', async () => {
    const body = await pay(env.sandbox, { reference: 'e2e_decline', webhook_url: `${env.merchant.url}/hooks/decline` });
    const done = await completePage(body.authurl, { otp: '000000', action: 'submit' });
    expect(done.status).toBe(303);
    expect(new URL(done.headers.get('location')!).searchParams.get('status')).toBe('Test Declined');
    const [hook] = await waitFor(
      () => (env.merchant.at('/hooks/decline').length ? env.merchant.at('/hooks/decline') : undefined),
      'the decline webhook',
    );
    expect(Object.fromEntries(new URLSearchParams(hook!.body))).toMatchObject({
      transID: body.transID,
      order_status: '24',
      status: 'Test Declined',
    });
    expect(verifySignature(hook!.headers['x-sandbox-signature'] as string, CREDS.secret, hook!.body)).toBe(true);
  });

  it('cancels from the page and delivers Cancelled (3)', async () => {
    const body = await pay(env.sandbox, { reference: 'e2e_cancel', webhook_url: `${env.merchant.url}/hooks/cancel` });
    const done = await completePage(body.authurl, { action: 'cancel' });
    expect(done.status).toBe(303);
    expect(new URL(done.headers.get('location')!).searchParams.get('order_status')).toBe('3');
    const [hook] = await waitFor(
      () => (env.merchant.at('/hooks/cancel').length ? env.merchant.at('/hooks/cancel') : undefined),
      'the cancel webhook',
    );
    expect(Object.fromEntries(new URLSearchParams(hook!.body))).toMatchObject({
      transID: body.transID,
      order_status: '3',
      status: 'Cancelled',
    });
  });

  it('delivers a frictionless approval (4242) without any page', async () => {
    const body = await pay(env.sandbox, { ccno: '4242424242424242', webhook_url: `${env.merchant.url}/hooks/frictionless` });
    expect(body.status).toBe('Test Approved');
    const [hook] = await waitFor(
      () => (env.merchant.at('/hooks/frictionless').length ? env.merchant.at('/hooks/frictionless') : undefined),
      'the webhook',
    );
    expect(new URLSearchParams(hook!.body).get('transID')).toBe(body.transID);
  });
});

describe('webhook retries', () => {
  it('retries after 500, 500 and succeeds on the third attempt, recording all three', async () => {
    const env = await startSandboxWithMerchant({ flags: { retry: '50ms,50ms,50ms' }, merchant: { statuses: [500, 500] } });
    const { sandbox: server, merchant } = env;
    try {
      const body = await pay(server, { ccno: '4242424242424242', webhook_url: `${merchant.url}/hooks/retry` });
      const attempts = await waitFor(() => {
        const rows = attemptsOf(server, body.transID);
        return rows.length === 3 && rows[2]!.status === 'succeeded' ? rows : undefined;
      }, 'three recorded attempts');
      expect(attempts.map((a) => [a.attempt, a.responseStatus, a.errorKind])).toEqual([
        [1, 500, 'http_status'],
        [2, 500, 'http_status'],
        [3, 200, null],
      ]);
      expect(merchant.received.map((r) => r.headers['x-sandbox-attempt'])).toEqual(['1', '2', '3']);
      expect(new Set(merchant.received.map((r) => r.headers['x-sandbox-delivery-id'])).size).toBe(1);
      expect(new Set(merchant.received.map((r) => r.headers['x-sandbox-event-id'])).size).toBe(1);
      for (const r of merchant.received)
        expect(verifySignature(r.headers['x-sandbox-signature'] as string, CREDS.secret, r.body)).toBe(true);
      const delivery = server.store.deliveries.get(attempts[0]!.deliveryId)!;
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3, lastStatus: 200 });
    } finally {
      await env.close();
    }
  });

  it('gives up after the profile is used up and marks the delivery failed', async () => {
    const env = await startSandboxWithMerchant({ flags: { retry: '50ms' }, merchant: { fallback: 500 } });
    const { sandbox: server, merchant } = env;
    try {
      const body = await pay(server, { ccno: '4242424242424242', webhook_url: `${merchant.url}/hooks/fail` });
      const attempts = await waitFor(() => {
        const rows = attemptsOf(server, body.transID);
        return rows.length === 2 && rows[1]!.status === 'failed' ? rows : undefined;
      }, 'two attempts, then failed');
      expect(server.store.deliveries.get(attempts[0]!.deliveryId)).toMatchObject({ status: 'failed', attempts: 2, lastStatus: 500 });
      expect(merchant.received).toHaveLength(2);
    } finally {
      await env.close();
    }
  });

  it('does not follow a redirect: a 302 is a failed attempt', async () => {
    const env = await startSandboxWithMerchant({ flags: { retry: '50ms' }, merchant: { statuses: [302] } });
    const { sandbox: server, merchant } = env;
    try {
      const body = await pay(server, { ccno: '4242424242424242', webhook_url: `${merchant.url}/hooks/redirect` });
      const attempts = await waitFor(() => {
        const rows = attemptsOf(server, body.transID);
        return rows.length === 2 && rows[1]!.status === 'succeeded' ? rows : undefined;
      }, 'a redirect, then a success');
      expect(attempts[0]).toMatchObject({ responseStatus: 302, errorKind: 'redirect' });
      expect(merchant.received.map((r) => r.path)).toEqual(['/hooks/redirect', '/hooks/redirect']);
    } finally {
      await env.close();
    }
  });
});

describe('a restart with a delivery still pending', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paysandbox-e2e-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('delivers the webhook after the sandbox comes back on the same database file', async () => {
    const dbPath = join(dir, 'sandbox.db');
    // Find a free port for the merchant, then keep it down while the first sandbox runs.
    const probe = await startFakeMerchant();
    const port = probe.port;
    await probe.close();

    const first = await start({ db: dbPath, retry: '500ms,500ms,500ms,500ms,500ms,500ms' });
    const body = await pay(first, {
      ccno: '4242424242424242',
      reference: 'e2e_restart',
      webhook_url: `http://127.0.0.1:${port}/hooks/restart`,
    });
    expect(body.status).toBe('Test Approved');
    await waitFor(() => attemptsOf(first, body.transID).length >= 1, 'a refused first attempt');
    expect(attemptsOf(first, body.transID)[0]!.errorKind).toBe('refused');
    await first.close();

    const merchant = await startFakeMerchant({ port });
    const second = await start({ db: dbPath, retry: '500ms,500ms,500ms,500ms,500ms,500ms' });
    try {
      const [hook] = await waitFor(() => (merchant.received.length ? merchant.received : undefined), 'the webhook after the restart');
      expect(Object.fromEntries(new URLSearchParams(hook!.body))).toMatchObject({
        transID: body.transID,
        reference: 'e2e_restart',
        order_status: '25',
      });
      expect(verifySignature(hook!.headers['x-sandbox-signature'] as string, CREDS.secret, hook!.body)).toBe(true);
      const rows = await waitFor(() => {
        const all = attemptsOf(second, body.transID);
        return all.at(-1)?.status === 'succeeded' ? all : undefined;
      }, 'the delivery to be marked succeeded');
      expect(rows.at(-1)).toMatchObject({ responseStatus: 200, errorKind: null });
      expect(rows.slice(0, -1).every((r) => r.errorKind === 'refused')).toBe(true);
      expect(Number(hook!.headers['x-sandbox-attempt'])).toBe(rows.length);
      // The transaction itself survived the restart too.
      expect(second.store.transactions.get(body.transID)).toMatchObject({ reference: 'e2e_restart', orderStatus: 25 });
    } finally {
      await second.close();
      await merchant.close();
    }
  });
});

describe('a merchant that does not answer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paysandbox-e2e-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('times out the attempt; shutting down waits for it, records it, and keeps the delivery pending', async () => {
    // A receiver that reads the request and never answers.
    const hanging: http.IncomingMessage[] = [];
    const silent = http.createServer((req) => hanging.push(req));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const dbPath = join(dir, 'hang.db');
    const server = await start({ db: dbPath, webhookTimeout: '500ms', retry: '1h' });
    try {
      const body = await pay(server, { ccno: '4242424242424242', webhook_url: `http://127.0.0.1:${port}/hooks/hang` });
      await waitFor(() => hanging.length === 1, 'the receiver to get the webhook');
      await server.close();
      const db = new Database(dbPath, { readonly: true });
      try {
        const row = db
          .prepare(`SELECT d.status, d.attempts, d.lease_until AS leaseUntil, a.error_kind AS errorKind FROM deliveries d
            JOIN events e ON e.id = d.event_id JOIN delivery_attempts a ON a.delivery_id = d.id WHERE e.resource_id = ?`)
          .all(body.transID);
        expect(row).toEqual([{ status: 'pending', attempts: 1, leaseUntil: null, errorKind: 'timeout' }]);
      } finally {
        db.close();
      }
    } finally {
      await server.close();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
