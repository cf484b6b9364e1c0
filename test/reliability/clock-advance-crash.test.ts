// Crash test of a long `clock advance` (issue 33), on the built CLI (`npm run build` first): the
// sandbox is a child process on a file database with 3 000 timed jobs waiting (1 000 uncaptured
// authorisations of the renewing test card 4000000000000176, each saved as a token: its lapse,
// the token's token.expiring and its renewal), all of which one 100-day jump makes due. The jump
// runs them in turns of 200, each committed; the sandbox is killed with SIGKILL (no shutdown code
// runs) in the middle of it, then restarted on the same file: every job has then run exactly once
// (one event each, a token renewed once), every event exists once, and every webhook it owed has
// arrived.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { startFakeMerchant } from '../helpers/fake-merchant.js';
import { CREDS } from '../helpers/test-sandbox.js';
import { api } from '../helpers/http.js';
import { waitFor } from '../helpers/wait-for.js';
import { startCliSandbox, type CliSandbox } from '../helpers/cli-sandbox.js';

const PAYMENTS = 1000;
/** The kinds of job each payment leaves waiting, and the event each publishes when it runs. */
const JOB_EVENTS = { 'payment.lapse': 'payment.expired', 'token.expiring': 'token.expiring', 'token.renew': 'token.updated' } as const;
const JOBS = PAYMENTS * Object.keys(JOB_EVENTS).length;
const KEY = { authorization: `Bearer ${CREDS.apiKey}` };

const dir = mkdtempSync(join(tmpdir(), 'sandbox-advance-crash-'));
const children = new Set<CliSandbox>();
afterAll(async () => {
  await Promise.all([...children].map((child) => child.kill()));
  rmSync(dir, { recursive: true, force: true });
});

async function startChild(db: string): Promise<CliSandbox> {
  const sandbox = await startCliSandbox(['--db', db, '--quiet']);
  children.add(sandbox);
  return sandbox;
}

/** Reads the database file as another process would (WAL: only what was committed). */
function readDb<T>(db: string, read: (store: Database.Database) => T): T {
  const store = new Database(db, { readonly: true });
  try {
    return read(store);
  } finally {
    store.close();
  }
}

const doneJobs = (store: Database.Database) =>
  store
    .prepare(`SELECT COUNT(*) FROM jobs WHERE done = 1 AND kind IN (${Object.keys(JOB_EVENTS).map(() => '?')})`)
    .pluck()
    .get(...Object.keys(JOB_EVENTS)) as number;

it(`SIGKILL in the middle of a 100-day jump over ${JOBS} due jobs: after a restart each ran once, each event exists once and was delivered`, async () => {
  const db = join(dir, 'advance.db');
  const receiver = await startFakeMerchant();
  const hooks = `${receiver.url}/hooks`;
  let sandbox = await startChild(db);
  try {
    const payments: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < PAYMENTS) {
          const i = next++;
          const res = await api(sandbox.url).post(
            '/v1/payments',
            {
              amount: 1000 + i,
              currency: 'EUR',
              card: { number: '4000000000000176', exp_month: 12, exp_year: 2040, cvc: '123' },
              setup_future_usage: 'off_session',
              capture: false,
              webhook_url: hooks,
            },
            KEY,
          );
          expect(res.status, res.text).toBe(200);
          expect(res.json.status).toBe('authorized');
          payments.push(res.json.id);
        }
      }),
    );
    const tokensBefore = readDb(db, (store) => store.prepare('SELECT id, exp_month AS month, exp_year AS year FROM tokens').all()) as {
      id: string;
      month: number;
      year: number;
    }[];
    expect(tokensBefore).toHaveLength(PAYMENTS);

    // The jump, answered or not: the kill cuts its connection.
    const jump = fetch(`${sandbox.url}/_sandbox/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ duration: '100d' }),
    }).then(
      (res) => `answered ${res.status}`,
      () => 'cut',
    );
    // Each turn commits: another connection sees the jobs done grow by turns, and the kill lands
    // after a few of them.
    const seen = new Set<number>();
    await waitFor(
      () => {
        const done = readDb(db, doneJobs);
        if (done > 0 && done < JOBS) seen.add(done);
        return done >= 600 || undefined;
      },
      'three turns of the jump committed',
      60_000,
      1,
    );
    await sandbox.kill();
    expect(await jump).toBe('cut');
    const doneAtKill = readDb(db, doneJobs);
    expect(doneAtKill, 'the kill landed in the middle of the jump').toBeLessThan(JOBS);
    expect(seen.size, `the jobs done, seen from another connection: ${[...seen].join(', ')}`).toBeGreaterThanOrEqual(2);

    // The restart runs what is still due (the clock's jump was saved in its first turn).
    sandbox = await startChild(db);
    const clock = (await api(sandbox.url).get('/_sandbox/clock')).json;
    expect(clock.offset_ms).toBeGreaterThanOrEqual(100 * 86_400_000);
    await waitFor(() => readDb(db, doneJobs) === JOBS || undefined, `all ${JOBS} jobs done`, 30_000);
    const eventIds = await waitFor(
      async () => {
        const pending = (await api(sandbox.url).get('/_sandbox/deliveries?status=pending&limit=1')).json.data;
        if (pending.length > 0) return undefined;
        return readDb(db, (store) => store.prepare('SELECT id FROM events').pluck().all() as string[]);
      },
      'an empty outbox',
      60_000,
    );
    await sandbox.kill();

    const facts = readDb(db, (store) => ({
      perSubject: store
        .prepare(
          `SELECT type, COUNT(*) AS events, COUNT(DISTINCT resource_id) AS subjects FROM events
           WHERE type IN ('payment.expired', 'token.expiring', 'token.updated') GROUP BY type ORDER BY type`,
        )
        .all(),
      statuses: store.prepare('SELECT status, COUNT(*) AS n FROM payments GROUP BY status').all(),
      tokens: store.prepare('SELECT id, exp_month AS month, exp_year AS year FROM tokens').all() as typeof tokensBefore,
      due: store.prepare('SELECT COUNT(*) FROM jobs WHERE done = 0 AND due_at <= ?').pluck().get(Date.parse(clock.now)),
      notDelivered: store.prepare("SELECT COUNT(*) FROM deliveries WHERE status != 'succeeded'").pluck().get(),
    }));
    // Each job ran exactly once: one event per payment or token, every payment expired, every
    // token renewed once (3 years on, not 6), nothing left due.
    expect(facts.perSubject).toEqual([
      { type: 'payment.expired', events: PAYMENTS, subjects: PAYMENTS },
      { type: 'token.expiring', events: PAYMENTS, subjects: PAYMENTS },
      { type: 'token.updated', events: PAYMENTS, subjects: PAYMENTS },
    ]);
    expect(facts.statuses).toEqual([{ status: 'expired', n: PAYMENTS }]);
    const renewed = new Map(facts.tokens.map((t) => [t.id, t]));
    expect(tokensBefore.filter((t) => renewed.get(t.id)?.year !== t.year + 3 || renewed.get(t.id)?.month !== t.month)).toEqual([]);
    expect(facts.due).toBe(0);
    // Every event (the authorisations' and the jump's) reached the receiver, at least once: a
    // delivery the kill cut short is sent again.
    expect(eventIds).toHaveLength(PAYMENTS + JOBS);
    expect(facts.notDelivered).toBe(0);
    const received = new Set(receiver.at('/hooks').map((r) => String(r.headers['x-sandbox-event-id'])));
    expect(eventIds.filter((id) => !received.has(id))).toEqual([]);
    expect([...received].filter((id) => !eventIds.includes(id))).toEqual([]);
    console.info(
      `advance crash test: ${doneAtKill} of ${JOBS} jobs done at the kill (seen at ${[...seen].join(', ')}), ${receiver.received.length} requests for ${eventIds.length} events`,
    );
  } finally {
    await receiver.close();
  }
}, 180_000);
