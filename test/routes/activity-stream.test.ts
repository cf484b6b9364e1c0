// What the activity stream (GET /_sandbox/stream, `sandbox listen`, the dashboard) hears of status
// changes: each change once it is committed, in the order the changes happened.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Activity } from '../../src/runtime/activity.js';
import { createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import { createPayment } from '../helpers/payments-api.js';

let sb: TestSandbox;
let seen: Activity[];
beforeEach(() => {
  sb = createTestSandbox();
  seen = [];
  sb.activity.subscribe((a) => seen.push(a));
});
afterEach(() => sb.close());

it('a frictionless S2S payment shows Pending, then Test Approved, and its event', async () => {
  const res = await sb.request('POST', '/api/s2s', s2sBody({ ccno: '4242424242424242' }));
  expect(res.json.order_status).toBe('25');
  const transId = String(res.json.transID);
  await waitFor(() => seen.some((a) => a.kind === 'event.created' && a.data.resource_id === transId), 'the event.created entry');
  const statuses = seen.filter((a) => a.kind === 'transaction.updated' && a.data.transID === transId).map((a) => a.data.order_status);
  // The last entry is the transaction's status now: a dashboard that applies them in order shows Test Approved.
  expect(statuses).toEqual([0, 25]);
});

it('a change reaches the stream only once it is committed: the status entry, then its event', async () => {
  const payment = await createPayment(sb, { token: 'tok_visa', capture: false });
  await sb.store.batch.committed();
  seen.length = 0;
  sb.services.payments.capture('mer_sandbox', payment.id);
  expect(seen).toEqual([]);
  await sb.store.batch.committed();
  expect(seen.map((a) => [a.kind, a.data.status ?? a.data.event])).toEqual([
    ['payment.updated', 'captured'],
    ['event.created', 'payment.captured'],
  ]);
});
