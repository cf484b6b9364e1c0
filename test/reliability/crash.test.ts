// Crash test of the built CLI (`node bin/sandbox.js start`, so run `npm run build` first): the
// sandbox is a child process on a file database, killed with SIGKILL (no shutdown code runs) and
// restarted on the same file.
//   1. 1 000 frictionless payments whose webhooks go to a receiver that is down; SIGKILL while the
//      worker retries; restart; bring the receiver up; SIGKILL again while deliveries flow;
//      restart: every event arrives at least once, each body verifies with its signature and
//      carries the expected fields.
//   2. SIGKILL in the middle of a burst of payment creations: every payment that was answered
//      200 exists after the restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/signatures/signing.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { CREDS, s2sBody } from '../helpers/test-sandbox.js';
import { api } from '../helpers/http.js';
import { waitFor } from '../helpers/wait-for.js';
import { startCliSandbox, type CliSandbox } from '../helpers/cli-sandbox.js';

const PAYMENTS = 1000;
// Retries every 100 ms for a minute: the worker is busy retrying when it is killed, and no
// delivery runs out of retries before the receiver comes up.
const RETRY = Array.from({ length: 600 }, () => '100ms').join(',');

const dir = mkdtempSync(join(tmpdir(), 'sandbox-crash-'));
const children = new Set<CliSandbox>();
afterAll(async () => {
  await Promise.all([...children].map((child) => child.kill()));
  rmSync(dir, { recursive: true, force: true });
});

/** A sandbox child process on `db`, killed at the end of the file if a test left it running. */
async function startChild(db: string): Promise<CliSandbox> {
  const sandbox = await startCliSandbox(['--db', db, '--quiet', '--retry', RETRY]);
  children.add(sandbox);
  return sandbox;
}

/** POSTs one frictionless S2S payment; resolves with the answer, or undefined when the connection died. */
async function pay(url: string, reference: string, webhookUrl: string): Promise<Record<string, string> | undefined> {
  try {
    const res = await api(url).post(
      '/api/s2s',
      s2sBody({ reference, ccno: '4242424242424242', webhook_url: webhookUrl, bill_amt: '12.34' }),
    );
    if (res.status !== 200) throw new Error(`payment ${reference}: ${res.status} ${res.text}`);
    return res.json as Record<string, string>;
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('payment ')) throw err;
    return undefined;
  }
}

/** Runs `task(i)` for i in 0..count-1, `width` at a time, until done or `stop()` says so. */
async function pool(count: number, width: number, task: (i: number) => Promise<void>, stop: () => boolean = () => false): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count && !stop()) await task(next++);
    }),
  );
}

/** The receiver's requests grouped by X-Sandbox-Event-Id. */
function byEvent(receiver: FakeMerchant): Map<string, string[]> {
  const events = new Map<string, string[]>();
  for (const r of receiver.received) {
    const id = String(r.headers['x-sandbox-event-id']);
    events.set(id, [...(events.get(id) ?? []), r.body]);
  }
  return events;
}

describe('SIGKILL while webhooks are retried and while they are delivered', () => {
  it(`delivers every event of ${PAYMENTS} payments at least once, uncorrupted`, async () => {
    const db = join(dir, 'deliveries.db');
    // A port that is down: bound once to pick it, then closed until the receiver comes up.
    const probe = await startFakeMerchant();
    const port = probe.port;
    await probe.close();
    const webhookUrl = `http://127.0.0.1:${port}/hook`;

    let sandbox = await startChild(db);
    const created = new Map<string, Record<string, string>>();
    await pool(PAYMENTS, 16, async (i) => {
      const answer = await pay(sandbox.url, `crash-${i}`, webhookUrl);
      expect(answer, `payment ${i} was not answered`).toBeDefined();
      expect(answer!.order_status).toBe('25');
      created.set(answer!.transID, answer!);
    });
    expect(created.size).toBe(PAYMENTS);

    // Kill while the worker is retrying against the down receiver.
    await waitFor(
      async () => {
        const list = (await (await fetch(`${sandbox.url}/_sandbox/deliveries?status=pending&limit=1000`)).json()) as {
          data: Array<{ attempts: number }>;
        };
        return list.data.filter((d) => d.attempts >= 2).length >= 100;
      },
      'deliveries being retried',
      20_000,
      20,
    );
    await sandbox.kill();

    // Restart, bring the receiver up, and kill again while deliveries flow.
    const receiver = await startFakeMerchant({ port });
    try {
      sandbox = await startChild(db);
      await waitFor(() => receiver.received.length > 0, 'the first delivery after the restart', 20_000, 1);
      await sandbox.kill();
      const receivedAtKill = byEvent(receiver).size;
      // The kill landed mid-flow: some events had arrived, most had not.
      expect(receivedAtKill).toBeGreaterThan(0);
      expect(receivedAtKill).toBeLessThan(PAYMENTS);
      // Restart once more and let the outbox drain.
      sandbox = await startChild(db);
      await waitFor(
        () => byEvent(receiver).size >= PAYMENTS,
        `${PAYMENTS} distinct events at the receiver (have ${byEvent(receiver).size})`,
        40_000,
        20,
      );
      // The last answers may still be being recorded: wait until the outbox says nothing is pending.
      const url = sandbox.url;
      await waitFor(
        async () =>
          ((await (await fetch(`${url}/_sandbox/deliveries?status=pending&limit=1`)).json()) as { data: unknown[] }).data.length === 0,
        'an empty outbox',
        20_000,
        20,
      );
      await sandbox.kill();

      const store = new Database(db, { readonly: true });
      const eventIds = store.prepare('SELECT id FROM events').pluck().all() as string[];
      const pendingOrFailed = store.prepare("SELECT COUNT(*) FROM deliveries WHERE status != 'succeeded'").pluck().get() as number;
      store.close();

      const received = byEvent(receiver);
      // Every event created arrived, and nothing arrived that was not created.
      expect(eventIds).toHaveLength(PAYMENTS);
      expect(received.size).toBe(eventIds.length);
      expect(new Set(received.keys())).toEqual(new Set(eventIds));
      expect(pendingOrFailed).toBe(0);
      console.info(
        `crash test: ${eventIds.length} events, ${receiver.received.length} requests received (${receiver.received.length - eventIds.length} duplicates), ${receivedAtKill} distinct delivered before the second kill`,
      );

      // None corrupted: each request verifies with its signature and parses to the payment it is about.
      const seenTrans = new Set<string>();
      for (const r of receiver.received) {
        expect(verifySignature(r.headers['x-sandbox-signature'] as string, CREDS.secret, r.body), `signature of ${r.body}`).toBe(true);
        const fields = Object.fromEntries(new URLSearchParams(r.body));
        const payment = created.get(fields.transID!);
        expect(payment, `webhook about an unknown transID: ${r.body}`).toBeDefined();
        expect(fields).toMatchObject({
          reference: payment!.reference,
          order_status: '25',
          status: 'Test Approved',
          bill_amt: '12.34',
          bill_currency: 'EUR',
        });
        seenTrans.add(fields.transID!);
      }
      expect(seenTrans.size).toBe(PAYMENTS);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});

describe('SIGKILL in the middle of a burst of payment creations', () => {
  it('every payment answered 200 exists after the restart', async () => {
    const db = join(dir, 'burst.db');
    let sandbox = await startChild(db);
    const acknowledged: string[] = [];
    let killed = false;
    const burst = pool(
      5000,
      32,
      async (i) => {
        const answer = await pay(sandbox.url, `burst-${i}`, 'http://127.0.0.1:9/hook');
        if (answer) acknowledged.push(answer.transID);
      },
      () => killed,
    );
    await waitFor(() => acknowledged.length >= 300, '300 acknowledged payments', 20_000, 1);
    await sandbox.kill();
    killed = true;
    await burst;
    const atKill = acknowledged.length;

    sandbox = await startChild(db);
    try {
      const missing: string[] = [];
      await pool(acknowledged.length, 16, async (i) => {
        const res = await fetch(`${sandbox.url}/_sandbox/transactions/${acknowledged[i]}`);
        if (res.status !== 200) missing.push(acknowledged[i]!);
        else expect(((await res.json()) as { order_status: string }).order_status).toBe('25');
      });
      expect(missing).toEqual([]);
      console.info(`burst test: ${atKill} payments acknowledged before SIGKILL, all ${atKill} found after the restart`);
    } finally {
      await sandbox.kill();
    }
  });
});
