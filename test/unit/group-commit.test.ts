import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { GroupCommit } from '../../src/store/group-commit.js';

const dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
let n = 0;
const open: Database.Database[] = [];
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
});

/** A writer connection with a batch, and a second connection that sees only committed rows. */
function setup() {
  const file = join(dir, `db${n++}.sqlite`);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (v INTEGER UNIQUE)');
  const reader = new Database(file, { readonly: true });
  open.push(db, reader);
  const committedCount = () => reader.prepare('SELECT COUNT(*) FROM t').pluck().get();
  return { db, batch: new GroupCommit(db), committedCount };
}

it('writes of one turn share one commit, made on the next setImmediate', async () => {
  const { db, batch, committedCount } = setup();
  for (let i = 0; i < 5; i++) batch.run(() => db.prepare('INSERT INTO t VALUES (?)').run(i));
  expect(batch.pending).toBe(true);
  expect(committedCount()).toBe(0);
  await batch.committed();
  expect(batch.pending).toBe(false);
  expect(committedCount()).toBe(5);
});

it('a unit that throws is undone alone; the others of its batch commit', async () => {
  const { db, batch, committedCount } = setup();
  batch.run(() => db.prepare('INSERT INTO t VALUES (1)').run());
  expect(() =>
    batch.run(() => {
      db.prepare('INSERT INTO t VALUES (2)').run();
      db.prepare('INSERT INTO t VALUES (1)').run(); // UNIQUE violation
    }),
  ).toThrow(/UNIQUE/);
  batch.run(() => db.prepare('INSERT INTO t VALUES (3)').run());
  await batch.committed();
  expect(db.prepare('SELECT v FROM t ORDER BY v').pluck().all()).toEqual([1, 3]);
  expect(committedCount()).toBe(2);
});

it('afterCommit runs once the batch is durable, or at once when none is open', async () => {
  const { db, batch, committedCount } = setup();
  const seen: number[] = [];
  batch.afterCommit(() => seen.push(-1));
  expect(seen).toEqual([-1]);
  batch.run(() => db.prepare('INSERT INTO t VALUES (7)').run());
  batch.afterCommit(() => seen.push(committedCount() as number));
  expect(seen).toEqual([-1]);
  await batch.committed();
  expect(seen).toEqual([-1, 1]);
});

it('alone() commits the open batch first and runs in a transaction of its own', () => {
  const { db, batch, committedCount } = setup();
  batch.run(() => db.prepare('INSERT INTO t VALUES (1)').run());
  batch.alone(() => db.prepare('INSERT INTO t VALUES (2)').run());
  expect(batch.pending).toBe(false);
  expect(committedCount()).toBe(2);
});

it('a batch SQLite rolled back whole (as a full disk can) fails every waiter, and the next write starts a new batch', async () => {
  const { db, batch, committedCount } = setup();
  batch.run(() => db.prepare('INSERT INTO t VALUES (1)').run());
  const first = batch.committed();
  const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
  expect(() =>
    batch.run(() => {
      // What SQLite does to the whole transaction on some SQLITE_FULL errors.
      db.exec('ROLLBACK');
      throw full;
    }),
  ).toThrow(full);
  await expect(first).rejects.toBe(full);
  batch.run(() => db.prepare('INSERT INTO t VALUES (2)').run());
  await batch.committed();
  expect(committedCount()).toBe(1);
});

it('a batch that only took the write lock holds no write; its first unit makes it written', async () => {
  const { db, batch } = setup();
  await batch.ready();
  expect(batch.pending).toBe(true);
  expect(batch.written).toBe(false);
  batch.run(() => db.prepare('INSERT INTO t VALUES (1)').run());
  expect(batch.written).toBe(true);
  await batch.committed();
  expect(batch.written).toBe(false);
});

it('what repositories remember is dropped when a unit is undone and around alone()', () => {
  const { db, batch } = setup();
  let forgotten = 0;
  batch.onForget(() => (forgotten += 1));
  batch.run(() => db.prepare('INSERT INTO t VALUES (1)').run());
  expect(forgotten).toBe(0);
  expect(() => batch.run(() => db.prepare('INSERT INTO t VALUES (1)').run())).toThrow(/UNIQUE/);
  expect(forgotten).toBe(1);
  batch.alone(() => db.prepare('INSERT INTO t VALUES (2)').run());
  expect(forgotten).toBe(2);
});

it('onCommitted runs right after the commit; a unit that throws drops what it registered, a failed batch drops everything', async () => {
  const { db, batch, committedCount } = setup();
  const seen: string[] = [];
  expect(batch.onCommitted(() => seen.push('no batch'))).toBe(false);
  batch.run(() => {
    db.prepare('INSERT INTO t VALUES (1)').run();
    batch.onCommitted(() => seen.push(`kept, ${committedCount()} committed`));
  });
  expect(() =>
    batch.run(() => {
      batch.onCommitted(() => seen.push('undone unit'));
      db.prepare('INSERT INTO t VALUES (1)').run(); // UNIQUE violation
    }),
  ).toThrow(/UNIQUE/);
  expect(seen).toEqual([]);
  await batch.committed();
  expect(seen).toEqual(['kept, 1 committed']);

  // A batch whose COMMIT fails (the database closed under it) runs none of its hand-overs.
  batch.run(() => {
    db.prepare('INSERT INTO t VALUES (2)').run();
    batch.onCommitted(() => seen.push('failed batch'));
  });
  db.exec('ROLLBACK');
  db.close();
  await expect(batch.committed()).rejects.toThrow();
  expect(seen).toEqual(['kept, 1 committed']);
});

it('a batch holding only records (state: false) keeps no answer waiting, and its failure fails none', async () => {
  const { db, batch, committedCount } = setup();
  batch.run(() => db.prepare('INSERT INTO t VALUES (1)').run(), false);
  expect(batch.written).toBe(false);
  // Nothing an answer reports is in it: committed() resolves without waiting for the commit.
  const waited = batch.committed();
  expect(batch.pending).toBe(true);
  await waited;
  // A state unit joining it makes answers wait for the commit again, and the record commits with it.
  batch.run(() => db.prepare('INSERT INTO t VALUES (2)').run());
  expect(batch.written).toBe(true);
  await batch.committed();
  expect(committedCount()).toBe(2);
});

/** A unit that meets a full disk the way SQLite can: the whole transaction is rolled back, then it throws. */
function fullDisk(db: Database.Database) {
  const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
  const unit = () => {
    db.exec('ROLLBACK');
    throw full;
  };
  return { full, unit };
}

it('an answer fails with the batch its own write went into, though a later unit of the turn failed it before the answer asked committed()', async () => {
  const { db, batch, committedCount } = setup();
  let handled!: () => void;
  const handlerDone = new Promise<void>((resolve) => (handled = resolve));
  // Request one writes, then its answer's middleware asks committed() only after its handler returns.
  const first = batch.answering(async (trail) => {
    batch.run(() => db.prepare('INSERT INTO t VALUES (1)').run());
    await handlerDone;
    await batch.committed(trail);
  });
  // Request two, in the same turn, meets the full disk: SQLite rolls back request one's row too.
  const { full, unit } = fullDisk(db);
  const second = batch.answering(async () => {
    batch.run(unit);
  });
  await expect(second).rejects.toBe(full);
  handled();
  await expect(first).rejects.toBe(full);
  expect(committedCount()).toBe(0);
  // The next request's write starts a batch of its own and is answered once it is committed.
  await batch.answering(async (trail) => {
    batch.run(() => db.prepare('INSERT INTO t VALUES (2)').run());
    await batch.committed(trail);
  });
  expect(committedCount()).toBe(1);
});

it('a read or a journal record in a batch that fails is answered: only the answers whose own writes were in it fail', async () => {
  const { db, batch } = setup();
  const writer = batch.answering(async (trail) => {
    batch.run(() => db.prepare('INSERT INTO t VALUES (1)').run());
    await batch.committed(trail);
  });
  // A read of the same turn waits for the open batch (it may have read its rows) but does not fail with it.
  const read = batch.answering((trail) => batch.committed(trail));
  // A request that only left a record no answer reports (the request journal) neither.
  const recorded = batch.answering(async (trail) => {
    batch.run(() => db.prepare('INSERT INTO t VALUES (3)').run(), false);
    await batch.committed(trail);
  });
  const { full, unit } = fullDisk(db);
  expect(() => batch.run(unit)).toThrow(full);
  await expect(writer).rejects.toBe(full);
  await expect(read).resolves.toBeUndefined();
  await expect(recorded).resolves.toBeUndefined();
});

it('an answer that wrote in two batches waits for both, and fails if the first failed at its commit', async () => {
  const { db, batch, committedCount } = setup();
  let wroteTwice!: () => void;
  const twice = new Promise<void>((resolve) => (wroteTwice = resolve));
  const answer = batch.answering(async (trail) => {
    batch.run(() => db.prepare('INSERT INTO t VALUES (1)').run());
    // Its first batch's COMMIT fails (as on a full disk): simulated by ending the transaction under the batch.
    db.exec('ROLLBACK');
    const failedCommit = batch.committed(trail);
    await expect(failedCommit).rejects.toThrow();
    batch.run(() => db.prepare('INSERT INTO t VALUES (2)').run());
    wroteTwice();
    await batch.committed(trail);
  });
  await twice;
  await expect(answer).rejects.toThrow(/no transaction is active/);
  // Its second write commits all the same: the answer failed for the first one only.
  await batch.committed();
  expect(committedCount()).toBe(1);
});

/** A promise to hold an answer's handling open until the test lets it go on. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

it("a handler's write after an await fails its answer when its batch fails, and any answer in handling then; not one that began after", async () => {
  const { db, batch, committedCount } = setup();
  const wrote = gate();
  const go = gate();
  // The handler awaits (its body, a lookup) before it writes: no answer's scope is current then.
  const writer = batch.answering(async (trail) => {
    await Promise.resolve();
    batch.run(() => db.prepare('INSERT INTO t VALUES (1)').run());
    wrote.open();
    await go.opened;
    await batch.committed(trail);
  });
  // A read in handling while that write ran cannot be told from its writer: it fails with it, conservatively.
  const during = batch.answering(async (trail) => {
    await go.opened;
    await batch.committed(trail);
  });
  await wrote.opened;
  // A read that began after the write is not its writer: it is answered.
  const after = batch.answering(async (trail) => {
    await go.opened;
    await batch.committed(trail);
  });
  const { full, unit } = fullDisk(db);
  expect(() => batch.run(unit)).toThrow(full);
  go.open();
  await expect(writer).rejects.toBe(full);
  await expect(during).rejects.toBe(full);
  await expect(after).resolves.toBeUndefined();
  expect(committedCount()).toBe(0);
});

it('a write run within() its answer after an await, or in the synchronous stretch, ties that answer only', async () => {
  const { db, batch } = setup();
  const go = gate();
  // A read already in handling when the others write.
  const read = batch.answering(async (trail) => {
    await go.opened;
    await batch.committed(trail);
  });
  // Written in the answer's synchronous stretch (a create's handler).
  const sync = batch.answering(async (trail) => {
    batch.run(() => db.prepare('INSERT INTO t VALUES (1)').run());
    await go.opened;
    await batch.committed(trail);
  });
  // Written after an await, carried back to its answer (the idempotency middleware's stored answer).
  let tied!: () => void;
  const wroteTied = new Promise<void>((resolve) => (tied = resolve));
  const resumed = batch.answering(async (trail) => {
    await Promise.resolve();
    batch.within(trail, () => batch.run(() => db.prepare('INSERT INTO t VALUES (2)').run()));
    tied();
    await go.opened;
    await batch.committed(trail);
  });
  await wroteTied;
  const { full, unit } = fullDisk(db);
  expect(() => batch.run(unit)).toThrow(full);
  go.open();
  await expect(sync).rejects.toBe(full);
  await expect(resumed).rejects.toBe(full);
  await expect(read).resolves.toBeUndefined();
});

it("work that is no answer's (within(null): the webhook worker, timed jobs) fails no answer in handling when its batch fails", async () => {
  const { db, batch } = setup();
  const go = gate();
  const read = batch.answering(async (trail) => {
    await go.opened;
    await batch.committed(trail);
  });
  await Promise.resolve();
  batch.within(null, () => batch.run(() => db.prepare('INSERT INTO t VALUES (1)').run()));
  const { full, unit } = fullDisk(db);
  expect(() => batch.within(null, () => batch.run(unit))).toThrow(full);
  go.open();
  await expect(read).resolves.toBeUndefined();
});
