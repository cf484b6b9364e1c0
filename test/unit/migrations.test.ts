// Migrations that rebuild a table (012 relaxes a CHECK on settlements) keep every row and every
// foreign key pointing at the rebuilt table, and leave foreign keys enforced afterwards; 012 also
// repairs the job index an early 011 left behind. 013 takes the card numbers out of the tokens.
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cardBrand } from '../../src/domain/card.js';
import { scriptForCard, TEST_CARDS } from '../../src/domain/outcomes.js';
import { migrate, type Db } from '../../src/store/open-database.js';
import { createTokensRepo } from '../../src/store/tokens-repo.js';

let db: Db;
afterEach(() => {
  if (db.open) db.close();
});

function oldDatabase(version: number): Db {
  db = new Database(':memory:') as Db;
  db.pragma('foreign_keys = ON');
  migrate(db, version);
  db.prepare("INSERT INTO merchants (id, name, webhook_secret) VALUES ('mer_a', 'A', 'whsec_a')").run();
  return db;
}

it('012 keeps the settlements and their items, adds adjustments = 0, and allows a settlement of clawbacks only', () => {
  oldDatabase(11);
  expect(db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBe(11);
  db.prepare(`INSERT INTO settlements (id, merchant_id, currency, gross, fees, refunds, net, count, status, pay_at, paid_at, created_at)
    VALUES ('st_old', 'mer_a', 'EUR', 1000, 39, 0, 961, 1, 'paid', 5, 6, 1)`).run();
  db.prepare(
    "INSERT INTO settlement_items (settlement_id, subject_type, subject_id, gross, fee, refunded) VALUES ('st_old', 'v1', 'pay_1', 1000, 39, 0)",
  ).run();
  // Before 012 a settlement must carry a payment.
  const empty =
    db.prepare(`INSERT INTO settlements (id, merchant_id, currency, gross, fees, refunds, net, count, status, pay_at, created_at)
    VALUES ('st_empty', 'mer_a', 'EUR', 0, 0, 0, -500, 0, 'created', 5, 1)`);
  expect(() => empty.run()).toThrow(/CHECK constraint failed/);

  migrate(db);
  expect(db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBeGreaterThanOrEqual(12);
  expect(db.prepare('SELECT id, gross, fees, refunds, adjustments, net, count, status, paid_at FROM settlements').all()).toEqual([
    { id: 'st_old', gross: 1000, fees: 39, refunds: 0, adjustments: 0, net: 961, count: 1, status: 'paid', paid_at: 6 },
  ]);
  expect(db.prepare('SELECT settlement_id, subject_id FROM settlement_items').all()).toEqual([
    { settlement_id: 'st_old', subject_id: 'pay_1' },
  ]);
  expect((db.pragma('foreign_key_list(settlement_items)') as Array<{ table: string }>).map((fk) => fk.table)).toEqual(['settlements']);
  expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
  expect(db.pragma('foreign_key_check')).toEqual([]);

  // Now a settlement may carry clawbacks only, and its items still need a settlement that exists.
  db.prepare(`INSERT INTO settlements (id, merchant_id, currency, gross, fees, refunds, adjustments, net, count, status, pay_at, created_at)
    VALUES ('st_claw', 'mer_a', 'EUR', 0, 0, 0, -500, -500, 0, 'created', 5, 1)`).run();
  db.prepare(
    "INSERT INTO settlement_adjustments (settlement_id, subject_type, subject_id, kind, amount) VALUES ('st_claw', 'v1', 'pay_1', 'refund', -500)",
  ).run();
  expect(() =>
    db
      .prepare(
        "INSERT INTO settlement_items (settlement_id, subject_type, subject_id, gross, fee, refunded) VALUES ('st_nope', 'v1', 'pay_2', 1, 1, 0)",
      )
      .run(),
  ).toThrow(/FOREIGN KEY/);
  expect(() =>
    db
      .prepare(
        "INSERT INTO settlement_adjustments (settlement_id, subject_type, subject_id, kind, amount) VALUES ('st_claw', 'v1', 'pay_1', 'chargeback', -1)",
      )
      .run(),
  ).toThrow(/CHECK constraint failed/);
});

it('a migration that would leave a dangling foreign key is rolled back with a message naming it', () => {
  oldDatabase(11);
  // A row whose parent is missing, as only a hand-edited database could have (keys were off).
  db.pragma('foreign_keys = OFF');
  db.prepare(
    "INSERT INTO settlement_items (settlement_id, subject_type, subject_id, gross, fee, refunded) VALUES ('st_gone', 'v1', 'pay_9', 1, 1, 0)",
  ).run();
  db.pragma('foreign_keys = ON');
  expect(() => migrate(db)).toThrow(
    /migration 012-settlement-clawbacks\.sql leaves 1 row whose foreign key has no parent \(first: settlement_items row \d+ -> settlements\)/,
  );
  expect(db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBe(11);
  expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
});

it('012 replaces the job index of the first 011, so cancelling a job searches instead of scanning every pending job', () => {
  oldDatabase(11);
  // What a database migrated by 011's first version holds.
  db.exec(
    "DROP INDEX jobs_pending_subject; CREATE INDEX jobs_pending_subject ON jobs (subject_id, kind) WHERE done = 0 AND kind <> 'challenge.expire'",
  );
  const plan = () =>
    (
      db
        .prepare('EXPLAIN QUERY PLAN UPDATE jobs SET done = 1 WHERE kind = ? AND subject_id = ? AND done = 0')
        .all('challenge.expire', 'tok') as Array<{ detail: string }>
    )
      .map((row) => row.detail)
      .join('; ');
  expect(plan()).toMatch(/^SCAN jobs/); // every pending job, through jobs_due
  migrate(db);
  expect(plan()).toBe('SEARCH jobs USING INDEX jobs_pending_subject (subject_id=? AND kind=?)');
});

it("013 keeps each token's brand, last 4, expiry and its card's outcome, drops the number, and leaves it nowhere in the file or the WAL", () => {
  const dir = mkdtempSync(join(tmpdir(), 'paysandbox-013-'));
  const file = join(dir, 'old.db');
  try {
    db = new Database(file) as Db;
    db.pragma('journal_mode = WAL');
    migrate(db, 12);
    db.prepare("INSERT INTO merchants (id, name, webhook_secret) VALUES ('mer_a', 'A', 'whsec_a')").run();
    const insert = db.prepare(
      "INSERT INTO tokens (id, merchant_id, number, brand, last4, exp_month, exp_year, created_at) VALUES (?, 'mer_a', ?, ?, ?, 12, 2030, 1)",
    );
    // Every test card, and a Luhn-valid number outside the table (the default outcome).
    // The cards of the table when 013 was written (the aging cards of 020 came later).
    const numbers = [...TEST_CARDS.filter((card) => !card.ages).map((card) => card.number), '5555555555554444'];
    for (const [i, number] of numbers.entries()) insert.run(`tok_${i}`, number, cardBrand(number), number.slice(-4));
    const keep = db.prepare(
      "INSERT INTO idempotency_keys (scope, key, fingerprint, method, path, state, response_status, response_body, created_at) VALUES ('mer_a', ?, 'f', 'POST', ?, 'done', ?, ?, 1)",
    );
    keep.run(
      'echoed',
      '/v1/tokens',
      400,
      '{"error":{"message":"card is invalid: expected a card, got {\\"number\\":\\"4000056655665556\\"..."}}',
    );
    keep.run('paid', '/v1/payments', 200, '{"id":"pay_1"}');

    migrate(db);
    expect(db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBeGreaterThanOrEqual(13);
    expect((db.pragma('table_info(tokens)') as Array<{ name: string }>).map((c) => c.name)).not.toContain('number');
    const repo = createTokensRepo(db);
    numbers.forEach((number, i) => {
      expect(repo.getForMerchant(`tok_${i}`, 'mer_a'), number).toEqual({
        id: `tok_${i}`,
        merchantId: 'mer_a',
        brand: cardBrand(number),
        last4: number.slice(-4),
        expMonth: 12,
        expYear: 2030,
        script: scriptForCard(number),
        createdAt: 1,
        offSessionPaymentId: null,
        scriptedOutcomes: [],
        renews: false,
      });
    });
    // The stored 400 that echoed a card is gone; the 200 stays replayable.
    expect(db.prepare('SELECT key FROM idempotency_keys').pluck().all()).toEqual(['paid']);
    // Read while the database is open: closing it would checkpoint and remove the WAL anyway.
    const bytes = [file, `${file}-wal`]
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f).toString('latin1'))
      .join('');
    for (const number of [...numbers, '4000056655665556'])
      expect(bytes.includes(number), `${number} is still in the database file`).toBe(false);
  } finally {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
