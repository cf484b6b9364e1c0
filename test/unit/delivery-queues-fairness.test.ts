// Fairness across receivers in the worker's queues (src/webhooks/delivery/queues.ts): an idle
// receiver always starts one attempt; more at once go only to receivers that answer in time; a
// receiver whose attempts time out gets one at a time, and slow ones hold at most 256 slots.
import { expect, it } from 'vitest';
import type { Delivery } from '../../src/store/deliveries-repo.js';
import { DeliveryQueues } from '../../src/webhooks/delivery/queues.js';

let n = 0;
/** A delivery to `url`, as the outbox hands one over. */
function delivery(url: string): Delivery {
  n++;
  return {
    id: `whd_${n}`,
    eventId: `evt_${n}`,
    eventType: 'payment.captured',
    merchantId: 'mer_sandbox',
    url,
    endpointId: null,
    contentType: 'application/json',
    body: '{}',
    status: 'pending',
    manual: false,
    attempts: 0,
    nextAttemptAt: 0,
    leaseUntil: 1,
    lastStatus: null,
    lastError: null,
    createdAt: 0,
    updatedAt: 0,
    traceParent: null,
    traceState: null,
  };
}

const nothingDue = { dueAfter: () => [] };
const origin = (d: Delivery) => new URL(d.url).origin;
const count = (taken: Delivery[], url: string) => taken.filter((d) => origin(d) === new URL(url).origin).length;

it('an idle receiver starts one attempt even when 300 others already hold more than the cap', () => {
  const q = new DeliveryQueues(nothingDue, 8);
  for (let i = 0; i < 300; i++) for (let j = 0; j < 3; j++) q.adopt(delivery(`http://127.0.0.1:${20000 + i}/hook`));
  expect(q.take(32)).toHaveLength(300);
  q.adopt(delivery('http://127.0.0.1:9999/hook'));
  q.adopt(delivery('http://127.0.0.1:9999/hook'));
  const taken = q.take(32);
  expect(taken.map((d) => origin(d))).toEqual(['http://127.0.0.1:9999']);
});

it('receivers whose attempts time out get one attempt at a time and 256 in all; a healthy one still gets its 8', () => {
  const q = new DeliveryQueues(nothingDue, 8);
  const slow = Array.from({ length: 300 }, (_, i) => `http://127.0.0.1:${21000 + i}/hook`);
  for (const url of slow) q.answered(url, 'timeout', 5000);
  for (const url of slow) for (let j = 0; j < 3; j++) q.adopt(delivery(url));
  for (let j = 0; j < 20; j++) q.adopt(delivery('http://127.0.0.1:9998/hook'));
  const taken = q.take(32);
  expect(count(taken, 'http://127.0.0.1:9998/hook')).toBe(8);
  expect(taken.length - 8).toBe(256);
  expect(Math.max(...slow.map((url) => count(taken, url)))).toBe(1);
  // One answered in time is no longer slow: its receiver may have 8 in flight again.
  const back = taken.find((d) => origin(d) === new URL(slow[0]!).origin)!;
  q.answered(back.url, null, 12);
  q.done(back);
  expect(count(q.take(32), slow[0]!)).toBe(2);
});

it('a receiver answering slowly (over a second) counts as slow; one answering 500 at once does not', () => {
  const q = new DeliveryQueues(nothingDue, 8);
  q.answered('http://127.0.0.1:9001/a', null, 1500);
  q.answered('http://127.0.0.1:9002/a', 'http_status', 3);
  for (let j = 0; j < 5; j++) {
    q.adopt(delivery('http://127.0.0.1:9001/a'));
    q.adopt(delivery('http://127.0.0.1:9002/a'));
  }
  const taken = q.take(32);
  expect(count(taken, 'http://127.0.0.1:9001/a')).toBe(1);
  expect(count(taken, 'http://127.0.0.1:9002/a')).toBe(5);
});
