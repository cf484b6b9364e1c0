// The one publisher: what one publish() call writes (the event, a delivery per recipient in the
// format it gets) and when its activity entries reach the stream (after the commit, in order).
import { afterEach, expect, it } from 'vitest';
import { decryptWebhookData } from '../../src/crypto/s2s-cipher.js';
import type { Activity } from '../../src/runtime/activity.js';
import type { Change } from '../../src/services/event-publisher.js';
import { eventEnvelope, formEncode } from '../../src/views/webhook-body.js';
import { createTestSandbox, CREDS, type TestSandbox } from '../helpers/test-sandbox.js';
import { approvedTransactionFields, capturedPaymentData } from '../helpers/event-data.js';

const MERCHANT = 'mer_sandbox';
let sb: TestSandbox;
afterEach(() => sb?.close());

/** A sandbox whose activity entries are recorded. */
function sandbox() {
  sb = createTestSandbox();
  const seen: Activity[] = [];
  sb.activity.subscribe((a) => seen.push(a));
  return { sb, seen };
}

const publish = (change: Change) => sb.store.tx(() => sb.services.events.publish(change));
/** The deliveries of an event, by URL (a fixed clock gives them one creation time). */
const deliveriesOf = (eventId: string) => sb.store.deliveries.list({ eventId, limit: 100 }).sort((a, b) => a.url.localeCompare(b.url));

it('records the event and queues the JSON envelope to the request URL and to each enabled endpoint subscribed to the type', () => {
  sandbox();
  const all = sb.services.webhookEndpoints.create(MERCHANT, { url: 'http://127.0.0.1:9/all', events: ['*'] });
  const exact = sb.services.webhookEndpoints.create(MERCHANT, { url: 'http://127.0.0.1:9/exact', events: ['payment.captured'] });
  sb.services.webhookEndpoints.create(MERCHANT, { url: 'http://127.0.0.1:9/other-type', events: ['refund.created'] });
  sb.services.webhookEndpoints.create(MERCHANT, { url: 'http://127.0.0.1:9/disabled', events: ['*'], enabled: false });
  sb.services.webhookEndpoints.create('mer_other', { url: 'http://127.0.0.1:9/other-merchant', events: ['*'] });

  const event = publish({
    merchantId: MERCHANT,
    resourceId: 'pay_1',
    event: { type: 'payment.captured', data: capturedPaymentData('pay_1') },
    webhook: { format: 'envelope', url: 'http://127.0.0.1:9/request' },
  })!;

  expect(sb.store.events.get(event.id)).toEqual({
    id: event.id,
    merchantId: MERCHANT,
    type: 'payment.captured',
    resourceId: 'pay_1',
    data: capturedPaymentData('pay_1'),
    createdAt: sb.clock.now(),
    // Published by no request that came with a traceparent: no trace for its webhooks to join.
    traceParent: null,
    traceState: null,
  });
  const body = eventEnvelope(event);
  expect(deliveriesOf(event.id).map((d) => [d.url, d.endpointId, d.contentType, d.body, d.manual])).toEqual([
    ['http://127.0.0.1:9/all', all.id, 'application/json', body, false],
    ['http://127.0.0.1:9/exact', exact.id, 'application/json', body, false],
    ['http://127.0.0.1:9/request', null, 'application/json', body, false],
  ]);
});

it('sends an S2S change to its webhook_url as the spec §6.1 form, or as data=<cipher> under the terminal keys, and to endpoints as the envelope', () => {
  sandbox();
  sb.services.webhookEndpoints.create(MERCHANT, { url: 'http://127.0.0.1:9/all', events: ['*'] });
  const fields = approvedTransactionFields('1001');
  const change = (encryption: 'aes256' | 'none'): Change => ({
    merchantId: MERCHANT,
    resourceId: '1001',
    event: { type: 'payment.authorized', data: fields },
    webhook: { format: 's2s-form', url: 'http://127.0.0.1:9/s2s', encryption, terNo: CREDS.terNO },
  });

  const plain = publish(change('none'))!;
  const [endpoint, form] = deliveriesOf(plain.id);
  expect([form!.contentType, form!.body]).toEqual(['application/x-www-form-urlencoded', formEncode(fields)]);
  expect([endpoint!.contentType, endpoint!.body]).toEqual(['application/json', eventEnvelope(plain)]);

  const encrypted = publish(change('aes256'))!;
  const cipher = deliveriesOf(encrypted.id).find((d) => d.url.endsWith('/s2s'));
  const data = new URLSearchParams(cipher!.body).get('data')!;
  expect(decryptWebhookData(data, { publicKey: CREDS.publicKey, privateKey: CREDS.privateKey })).toBe(formEncode(fields));
});

it('emits the status entry, then event.created, only once the transaction has committed', async () => {
  const { seen } = sandbox();
  const event = publish({
    merchantId: MERCHANT,
    resourceId: 'pay_1',
    event: { type: 'payment.authorized', data: capturedPaymentData('pay_1') },
    status: { kind: 'payment.updated', data: { payment_id: 'pay_1', status: 'authorized' } },
  })!;
  expect(seen).toEqual([]);
  await sb.store.batch.committed();
  expect(seen).toEqual([
    { kind: 'payment.updated', at: sb.clock.now(), data: { payment_id: 'pay_1', status: 'authorized' } },
    { kind: 'event.created', at: event.createdAt, data: { id: event.id, event: 'payment.authorized', resource_id: 'pay_1' } },
  ]);
});

it('a change without an event writes nothing and shows only its status', async () => {
  const { seen } = sandbox();
  const before = sb.store.events.list({ limit: 100 }).length;
  const event = publish({
    merchantId: MERCHANT,
    resourceId: 'cs_1',
    webhook: { format: 'envelope', url: 'http://127.0.0.1:9/request' },
    status: { kind: 'session.updated', data: { id: 'cs_1', status: 'open' } },
  });
  expect(event).toBeUndefined();
  expect(sb.store.events.list({ limit: 100 })).toHaveLength(before);
  await sb.store.batch.committed();
  expect(seen.map((a) => a.kind)).toEqual(['session.updated']);
});

it('writes nothing when the caller’s transaction rolls back', () => {
  sandbox();
  let id = '';
  expect(() =>
    sb.store.tx(() => {
      id = sb.services.events.publish({
        merchantId: MERCHANT,
        resourceId: 'pay_1',
        event: { type: 'payment.captured', data: capturedPaymentData('pay_1') },
        webhook: { format: 'envelope', url: 'http://127.0.0.1:9/request' },
      })!.id;
      throw new Error('the change failed');
    }),
  ).toThrow('the change failed');
  expect(sb.store.events.get(id)).toBeUndefined();
  expect(deliveriesOf(id)).toEqual([]);
});

it('resends a recorded event as one manual delivery', () => {
  sandbox();
  const event = publish({
    merchantId: MERCHANT,
    resourceId: 'pay_1',
    event: { type: 'payment.captured', data: capturedPaymentData('pay_1') },
  })!;
  expect(deliveriesOf(event.id)).toEqual([]);
  const id = sb.store.tx(() =>
    sb.services.events.resend(event, {
      url: 'http://127.0.0.1:9/again',
      endpointId: null,
      contentType: 'application/json',
      body: eventEnvelope(event),
    }),
  );
  expect(deliveriesOf(event.id).map((d) => [d.id, d.url, d.manual])).toEqual([[id, 'http://127.0.0.1:9/again', true]]);
});
