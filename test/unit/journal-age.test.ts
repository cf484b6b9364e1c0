// The request journal's age bound (--journal-age): rows of requests older than it go, the oldest
// by arrival first; while the oldest is younger, nothing goes (and the table is not scanned).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';
import { createStore, type Store } from '../../src/store/store.js';

let store: Store;
beforeEach(() => {
  store = createStore(openDatabase(':memory:'));
});
afterEach(() => store.db.close());

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 30, 12);

/** A kept GET that came in at wall-clock `wallAt`. */
function keep(id: string, wallAt: number): void {
  store.journal.insert({
    id,
    merchantId: null,
    surface: 'control',
    method: 'GET',
    path: '/_sandbox/health',
    query: '',
    status: 200,
    durationMs: 0.1,
    startedAt: wallAt,
    endedAt: wallAt,
    wallAt,
    idempotencyKey: null,
    requestHeaders: {},
    requestBody: null,
    responseType: null,
    responseBody: null,
    ids: [],
    traceparent: null,
    fault: null,
    script: null,
  });
}

const kept = () => ['req_a', 'req_b', 'req_c', 'req_d'].filter((id) => store.journal.seqOf(id) !== undefined);

it('drops every request that came in before the bound, and keeps the younger ones', () => {
  keep('req_a', NOW - 30 * HOUR);
  keep('req_b', NOW - 25 * HOUR);
  keep('req_c', NOW - 2 * HOUR);
  keep('req_d', NOW);
  expect(store.journal.dropOlder(NOW - 24 * HOUR)).toBe(2);
  expect(kept()).toEqual(['req_c', 'req_d']);
});

it('drops nothing while the oldest request is younger than the bound', () => {
  keep('req_a', NOW - 3 * HOUR);
  keep('req_b', NOW - HOUR);
  expect(store.journal.dropOlder(NOW - 24 * HOUR)).toBe(0);
  expect(kept()).toEqual(['req_a', 'req_b']);
});

it('a request written after the wall clock stepped back goes once the requests before it are old enough', () => {
  keep('req_a', NOW - 2 * HOUR);
  keep('req_b', NOW - 48 * HOUR);
  expect(store.journal.dropOlder(NOW - 24 * HOUR)).toBe(0);
  expect(store.journal.dropOlder(NOW)).toBe(2);
  expect(kept()).toEqual([]);
});

it('an empty journal has nothing to drop', () => {
  expect(store.journal.dropOlder(NOW)).toBe(0);
});
