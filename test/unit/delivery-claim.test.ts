// The claim of due deliveries: a claimed row is leased, so it is not claimed again until the lease
// has run out on the clock. Behind a saturated receiver, each receiver at its cap is left out of
// the query inside SQLite, so another origin's webhook queued behind hundreds of its rows is still
// claimed, and a receiver's own backlog never lets it take more than its cap.
import { afterEach, expect, it } from 'vitest';
import { receiverOf } from '../../src/webhooks/in-flight.js';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';

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
        event: { type: 'payment.captured', data: { payment_id: `pay_${i}` } },
        webhook: { format: 'envelope', url },
      });
  });
}

const claim = (busy: Map<string, number>) => {
  const now = sb.clock.now() + 1;
  return sb.store.deliveries.claimDue(now, now + 10_000, 32, receiverOf, 8, busy).map((d) => d.url);
};

it("claims a healthy origin's webhook queued behind 400 rows of an origin already at its cap", () => {
  sb = createTestSandbox();
  queue([...Array.from({ length: 400 }, (_, i) => `${DEAD}/hook/${i}`), `${HEALTHY}/hook`]);
  expect(claim(new Map([[DEAD, 8]]))).toEqual([`${HEALTHY}/hook`]);
});

it('gives an origin at most its cap of a claim, and the rest of the claim to the others', () => {
  sb = createTestSandbox();
  queue([...Array.from({ length: 300 }, (_, i) => `${DEAD}/hook/${i}`), `${HEALTHY}/a`, `${HEALTHY}/b`]);
  const urls = claim(new Map([[DEAD, 5]]));
  expect(urls.filter((url) => url.startsWith(DEAD))).toEqual([`${DEAD}/hook/0`, `${DEAD}/hook/1`, `${DEAD}/hook/2`]);
  expect(urls.filter((url) => url.startsWith(HEALTHY))).toEqual([`${HEALTHY}/a`, `${HEALTHY}/b`]);
});

it('a claimed delivery is not claimed again while its lease holds, and is once the lease has run out', async () => {
  sb = createTestSandbox();
  queue([`${HEALTHY}/hook`]);
  const claimNow = () => {
    const now = sb.clock.now();
    return sb.store.deliveries.claimDue(now, now + 10_000, 32).map((d) => d.url);
  };
  expect(claimNow()).toEqual([`${HEALTHY}/hook`]);
  expect(claimNow()).toEqual([]);
  await sb.post('/_sandbox/clock/advance', { duration: '9s' });
  expect(claimNow()).toEqual([]);
  await sb.post('/_sandbox/clock/advance', { duration: '2s' });
  expect(claimNow()).toEqual([`${HEALTHY}/hook`]);
});
