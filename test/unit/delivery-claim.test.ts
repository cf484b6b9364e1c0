// The claim of due deliveries: the worker's per-receiver queues are filled from the outbox in due
// order, so another origin's webhook queued behind hundreds of a saturated origin's rows is still
// taken, a receiver never gets more than its cap, a receiver's backlog larger than its queue is
// passed over and read back later (every row exactly once), and a leased row is not claimed again
// until the lease has run out on the clock.
import { afterEach, expect, it } from 'vitest';
import { DeliveryQueues } from '../../src/webhooks/delivery/queues.js';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { capturedPaymentData } from '../helpers/event-data.js';

let sb: TestSandbox;
afterEach(() => sb?.close());

const DEAD = 'http://127.0.0.1:9';
const HEALTHY = 'http://127.0.0.1:10';

/** Queues one webhook per URL, oldest first. */
function queue(urls: string[]): void {
  sb.store.tx(() => {
    for (const [i, url] of urls.entries())
      sb.services.events.publish({
        merchantId: 'mer_sandbox',
        resourceId: `pay_${i}`,
        event: { type: 'payment.captured', data: capturedPaymentData(`pay_${i}`) },
        webhook: { format: 'envelope', url },
      });
  });
  sb.store.batch.flush();
}

/** Queues over the sandbox's outbox, 8 in flight per receiver, filled and taken as the worker does. */
function queues() {
  const q = new DeliveryQueues(sb.store.deliveries, 8);
  const take = (room = 32) => {
    q.fill(sb.clock.now() + 1, room);
    return q.take(room);
  };
  return { q, take };
}

it("takes a healthy origin's webhook queued behind 400 rows of an origin at its cap, and at most 8 of that origin", () => {
  sb = createTestSandbox();
  queue([...Array.from({ length: 400 }, (_, i) => `${DEAD}/hook/${i}`), `${HEALTHY}/a`, `${HEALTHY}/b`]);
  const urls = queues()
    .take()
    .map((d) => d.url);
  expect(urls.filter((url) => url.startsWith(DEAD))).toEqual(Array.from({ length: 8 }, (_, i) => `${DEAD}/hook/${i}`));
  expect(urls.filter((url) => url.startsWith(HEALTHY))).toEqual([`${HEALTHY}/a`, `${HEALTHY}/b`]);
});

it('passes over a backlog larger than a queue to reach other origins, then reads it back: every row once', () => {
  sb = createTestSandbox();
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

it('a claimed delivery is not claimed again while its lease holds, and is once the lease has run out', async () => {
  sb = createTestSandbox();
  queue([`${HEALTHY}/hook`]);
  const [delivery] = queues().take();
  const claimNow = () => {
    const now = sb.clock.now();
    return [...sb.store.tx(() => sb.store.deliveries.claimDue([delivery!], now, now + 10_000))];
  };
  expect(claimNow()).toEqual([delivery!.id]);
  expect(claimNow()).toEqual([]);
  await sb.post('/_sandbox/clock/advance', { duration: '9s' });
  expect(claimNow()).toEqual([]);
  await sb.post('/_sandbox/clock/advance', { duration: '2s' });
  expect(claimNow()).toEqual([delivery!.id]);
});
