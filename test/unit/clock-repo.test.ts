// A restarted clock resumes from what the database holds: the saved offset, and never behind the
// newest created_at / updated_at of any table, a table added by a later migration included.
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';
import { createClockRepo } from '../../src/store/clock-repo.js';

it('answers no floor for a database without rows', () => {
  const db = openDatabase(':memory:');
  expect(createClockRepo(db).load()).toEqual({ offsetMs: 0, floor: 0 });
  db.close();
});

it('takes the newest created_at or updated_at of any table as the floor, over the last save', () => {
  const db = openDatabase(':memory:');
  const clock = createClockRepo(db);
  clock.save(5000, 1000);
  expect(clock.load()).toEqual({ offsetMs: 5000, floor: 1000 });
  db.exec(`CREATE TABLE later_a (id INTEGER PRIMARY KEY, created_at INTEGER, updated_at INTEGER);
    CREATE TABLE "later ""b""" (id INTEGER PRIMARY KEY, updated_at INTEGER);
    CREATE TABLE later_c (id INTEGER PRIMARY KEY, happened_at INTEGER);
    INSERT INTO later_a (created_at, updated_at) VALUES (2000, 3000), (2500, NULL);
    INSERT INTO "later ""b""" (updated_at) VALUES (4000);
    INSERT INTO later_c (happened_at) VALUES (9000);`);
  // happened_at is neither column: its 9 000 is no floor.
  expect(clock.load()).toEqual({ offsetMs: 5000, floor: 4000 });
  db.close();
});

it('passes over a column whose newest value is not a number', () => {
  const db = openDatabase(':memory:');
  db.exec(`CREATE TABLE odd (id INTEGER PRIMARY KEY, created_at);
    CREATE TABLE even (id INTEGER PRIMARY KEY, created_at INTEGER);
    INSERT INTO odd (created_at) VALUES (7000), ('2026-11-30');
    INSERT INTO even (created_at) VALUES (6000);`);
  expect(createClockRepo(db).load().floor).toBe(6000);
  db.close();
});
