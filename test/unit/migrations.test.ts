// Migrations that rebuild a table (012 relaxes a CHECK on settlements) keep every row and every
// foreign key pointing at the rebuilt table, and leave foreign keys enforced afterwards; 012 also
// repairs the job index an early 011 left behind.
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { migrate, type Db } from '../../src/store/open-database.js';

let db: Db;
afterEach(() => db.close());

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
  db.prepare("INSERT INTO settlement_items (settlement_id, subject_type, subject_id, gross, fee, refunded) VALUES ('st_old', 'v1', 'pay_1', 1000, 39, 0)").run();
  // Before 012 a settlement must carry a payment.
  const empty = db.prepare(`INSERT INTO settlements (id, merchant_id, currency, gross, fees, refunds, net, count, status, pay_at, created_at)
    VALUES ('st_empty', 'mer_a', 'EUR', 0, 0, 0, -500, 0, 'created', 5, 1)`);
  expect(() => empty.run()).toThrow(/CHECK constraint failed/);

  migrate(db);
  expect(db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBeGreaterThanOrEqual(12);
  expect(db.prepare("SELECT id, gross, fees, refunds, adjustments, net, count, status, paid_at FROM settlements").all()).toEqual([
    { id: 'st_old', gross: 1000, fees: 39, refunds: 0, adjustments: 0, net: 961, count: 1, status: 'paid', paid_at: 6 },
  ]);
  expect(db.prepare('SELECT settlement_id, subject_id FROM settlement_items').all()).toEqual([{ settlement_id: 'st_old', subject_id: 'pay_1' }]);
  expect((db.pragma('foreign_key_list(settlement_items)') as Array<{ table: string }>).map((fk) => fk.table)).toEqual(['settlements']);
  expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
  expect(db.pragma('foreign_key_check')).toEqual([]);

  // Now a settlement may carry clawbacks only, and its items still need a settlement that exists.
  db.prepare(`INSERT INTO settlements (id, merchant_id, currency, gross, fees, refunds, adjustments, net, count, status, pay_at, created_at)
    VALUES ('st_claw', 'mer_a', 'EUR', 0, 0, 0, -500, -500, 0, 'created', 5, 1)`).run();
  db.prepare("INSERT INTO settlement_adjustments (settlement_id, subject_type, subject_id, kind, amount) VALUES ('st_claw', 'v1', 'pay_1', 'refund', -500)").run();
  expect(() => db.prepare("INSERT INTO settlement_items (settlement_id, subject_type, subject_id, gross, fee, refunded) VALUES ('st_nope', 'v1', 'pay_2', 1, 1, 0)").run()).toThrow(/FOREIGN KEY/);
  expect(() => db.prepare("INSERT INTO settlement_adjustments (settlement_id, subject_type, subject_id, kind, amount) VALUES ('st_claw', 'v1', 'pay_1', 'chargeback', -1)").run()).toThrow(/CHECK constraint failed/);
});

it('a migration that would leave a dangling foreign key is rolled back with a message naming it', () => {
  oldDatabase(11);
  // A row whose parent is missing, as only a hand-edited database could have (keys were off).
  db.pragma('foreign_keys = OFF');
  db.prepare("INSERT INTO settlement_items (settlement_id, subject_type, subject_id, gross, fee, refunded) VALUES ('st_gone', 'v1', 'pay_9', 1, 1, 0)").run();
  db.pragma('foreign_keys = ON');
  expect(() => migrate(db)).toThrow(/migration 012-settlement-clawbacks\.sql leaves 1 row whose foreign key has no parent \(first: settlement_items row \d+ -> settlements\)/);
  expect(db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBe(11);
  expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
});

it('012 replaces the job index of the first 011, so cancelling a job searches instead of scanning every pending job', () => {
  oldDatabase(11);
  // What a database migrated by 011's first version holds.
  db.exec("DROP INDEX jobs_pending_subject; CREATE INDEX jobs_pending_subject ON jobs (subject_id, kind) WHERE done = 0 AND kind <> 'challenge.expire'");
  const plan = () => (db.prepare('EXPLAIN QUERY PLAN UPDATE jobs SET done = 1 WHERE kind = ? AND subject_id = ? AND done = 0').all('challenge.expire', 'tok') as Array<{ detail: string }>).map((row) => row.detail).join('; ');
  expect(plan()).toMatch(/^SCAN jobs/); // every pending job, through jobs_due
  migrate(db);
  expect(plan()).toBe('SEARCH jobs USING INDEX jobs_pending_subject (subject_id=? AND kind=?)');
});
