// The claim of due deliveries: the worker's per-receiver queues are filled from the outbox in due
// order, so another origin's webhook queued behind hundreds of a saturated origin's rows is still
// taken, a receiver never gets more than its cap, a receiver's backlog larger than its queue is
// passed over and read back later (every row exactly once), and a leased row is not claimed again
// until the lease has run out on the clock. The store alone (SQLite in memory) under the queues:
// the outbox's own reads and lease; test/unit/delivery-queues.test.ts tests the queues' cursor.
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';
import { readFixtures } from '../../src/store/fixtures.js';
import { createStore, type Store } from '../../src/store/store.js';
import { DeliveryQueues } from '../../src/webhooks/delivery/queues.js';

let store: Store;
afterEach(() => store?.db.close());

const DEAD = 'http://127.0.0.1:9';
const HEALTHY = 'http://127.0.0.1:10';
const NOW = Date.UTC(2030, 0, 1);

/** A store of the default fixtures' merchants, its outbox empty. */
function openStore(): Store {
  store = createStore(openDatabase(':memory:'));
  store.credentials.seed(readFixtures(fileURLToPath(new URL('../../fixtures/default.json', import.meta.url))));
  return store;
}

/** Queues one webhook per URL, oldest first, as the event publisher does: an event, then its delivery due at once. */
function queue(urls: string[]): void {
  store.tx(() => {
    for (const [i, url] of urls.entries()) {
      const at = NOW + i;
      store.events.insert({
        id: `evt_${i}`,
        merchantId: 'mer_sandbox',
        type: 'payment.captured',
        resourceId: `pay_${i}`,
        data: {},
        createdAt: at,
      });
      store.deliveries.insert({
        id: `whd_${i}`,
        eventId: `evt_${i}`,
        merchantId: 'mer_sandbox',
        url,
        endpointId: null,
        contentType: 'application/json',
        body: '{}',
        manual: false,
        nextAttemptAt: at,
        createdAt: at,
      });
    }
  });
  store.batch.flush();
}

/** Queues over the store's outbox, 8 in flight per receiver, filled and taken as the worker does. */
function queues() {
  const q = new DeliveryQueues(store.deliveries, 8);
  const take = (room = 32) => {
    q.fill(NOW + 10_000, room);
    return q.take(room);
  };
  return { q, take };
}

it("takes a healthy origin's webhook queued behind 400 rows of an origin at its cap, and at most 8 of that origin", () => {
  openStore();
  queue([...Array.from({ length: 400 }, (_, i) => `${DEAD}/hook/${i}`), `${HEALTHY}/a`, `${HEALTHY}/b`]);
  const urls = queues()
    .take()
    .map((d) => d.url);
  expect(urls.filter((url) => url.startsWith(DEAD))).toEqual(Array.from({ length: 8 }, (_, i) => `${DEAD}/hook/${i}`));
  expect(urls.filter((url) => url.startsWith(HEALTHY))).toEqual([`${HEALTHY}/a`, `${HEALTHY}/b`]);
});

it('passes over a backlog larger than a queue to reach other origins, then reads it back: every row once', () => {
  openStore();
  queue([...Array.from({ length: 700 }, (_, i) => `${DEAD}/hook/${i}`), `${HEALTHY}/a`]);
  const { q, take } = queues();
  const first = take();
  expect(first.map((d) => d.url)).toContain(`${HEALTHY}/a`);
  const seen = first.filter((d) => d.url.startsWith(DEAD)).map((d) => d.url);
  for (const d of first) q.done(d);
  for (let round = 0; round < 200 && seen.length < 700; round++) {
    const taken = take();
    seen.push(...taken.map((d) => d.url));
    for (const d of taken) q.done(d);
  }
  expect(seen).toEqual(Array.from({ length: 700 }, (_, i) => `${DEAD}/hook/${i}`));
  expect(take()).toEqual([]);
});

it('a claimed delivery is not claimed again while its lease holds, and is once the lease has run out', () => {
  openStore();
  queue([`${HEALTHY}/hook`]);
  const [delivery] = queues().take();
  const claimAt = (now: number) => [...store.tx(() => store.deliveries.claimDue([delivery!], now, now + 10_000))];
  expect(claimAt(NOW)).toEqual([delivery!.id]);
  expect(claimAt(NOW)).toEqual([]);
  expect(claimAt(NOW + 9_000)).toEqual([]);
  expect(claimAt(NOW + 11_000)).toEqual([delivery!.id]);
});
