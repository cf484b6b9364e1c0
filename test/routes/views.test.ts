// One home for views: every list the sandbox answers (the /v1/ lists and the control API's) is the
// one envelope {object: "list", data, has_more}, and every answer is exactly what its view schema in
// src/views says (strict: no field the schema does not name, nulls only where it allows them).
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH } from '../helpers/payments-api.js';
import { seedObjects, type SeededObjects } from '../helpers/seed-objects.js';
import { chargebackView } from '../../src/views/chargeback.js';
import { checkoutSessionView } from '../../src/views/checkout-session.js';
import { clockView, healthView } from '../../src/views/clock.js';
import { deliveryDetailView, deliveryView } from '../../src/views/delivery.js';
import { controlEventDetailView, controlEventView, eventView, triggerResultView } from '../../src/views/event.js';
import { faultListView } from '../../src/views/fault-rule.js';
import { listOf } from '../../src/views/list.js';
import { paymentView } from '../../src/views/payment.js';
import { refundView } from '../../src/views/refund.js';
import { controlTransactionView, s2sPaymentView, s2sRefundView, s2sStatusView } from '../../src/views/s2s.js';
import { scenarioListView } from '../../src/views/scenario-entry.js';
import { settlementView } from '../../src/views/settlement.js';
import { tokenView } from '../../src/views/token.js';
import { webhookEndpointView } from '../../src/views/webhook-endpoint.js';
import type { LazySchema } from '../../src/lazy-schema.js';

let sb: TestSandbox;
let seeded: SeededObjects;
beforeAll(async () => {
  sb = createTestSandbox({ faults: 'duplicate=1' });
  seeded = await seedObjects(sb);
  expect((await sb.request('POST', '/_sandbox/chargebacks', { payment_id: seeded.payment })).status).toBe(201);
  expect((await sb.request('POST', '/_sandbox/settlements', { pay_after: '0s' })).status).toBe(200);
  expect((await sb.request('POST', '/_sandbox/scenarios', { name: 'views', entries: [{ outcome: 'approve' }] })).status).toBe(201);
});
afterAll(() => sb.close());

/** Every schema, strict all the way down, so an answer with a field the view does not name fails. */
function strict<T extends z.ZodType>(schema: T): z.ZodType {
  if (schema instanceof z.ZodObject)
    return z.strictObject(Object.fromEntries(Object.entries(schema.shape).map(([key, value]) => [key, strict(value as z.ZodType)])));
  if (schema instanceof z.ZodNullable) return strict(schema.unwrap() as z.ZodType).nullable();
  if (schema instanceof z.ZodOptional) return strict(schema.unwrap() as z.ZodType).optional();
  if (schema instanceof z.ZodArray) return z.array(strict(schema.element as z.ZodType));
  if (schema instanceof z.ZodUnion) return z.union((schema.options as z.ZodType[]).map(strict) as [z.ZodType, z.ZodType]);
  return schema;
}

async function answer(path: string, headers: Record<string, string> = {}) {
  const res = await sb.request('GET', path, undefined, headers);
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.json;
}

describe('every list answers {object: "list", data, has_more}, with items as their view says', () => {
  const lists: Array<[string, LazySchema, boolean]> = [
    ['/v1/payments', paymentView, true],
    ['/v1/refunds', refundView, true],
    ['/v1/webhook_endpoints', webhookEndpointView, true],
    ['/v1/events', eventView, true],
    ['/_sandbox/deliveries', deliveryView, false],
    ['/_sandbox/events', controlEventView, false],
    ['/_sandbox/chargebacks', chargebackView, false],
    ['/_sandbox/settlements', settlementView, false],
  ];
  it.each(lists)('%s', async (path, item, bearer) => {
    const json = await answer(path, bearer ? AUTH : {});
    expect(Object.keys(json).sort()).toEqual(['data', 'has_more', 'object']);
    expect(json.data.length).toBeGreaterThan(0);
    expect(strict(listOf(item)()).safeParse(json).error).toBeUndefined();
  });

  it('/_sandbox/scenarios: the queue in the envelope', async () => {
    const json = await answer('/_sandbox/scenarios');
    expect(json).toMatchObject({ object: 'list', has_more: false });
    expect(strict(scenarioListView()).safeParse(json).error).toBeUndefined();
  });

  it('/_sandbox/faults: the rules in the envelope, the seed alongside', async () => {
    const json = await answer('/_sandbox/faults');
    expect(json).toMatchObject({ object: 'list', has_more: false, data: [{ spec: 'duplicate=1', source: 'flag' }] });
    expect(strict(faultListView()).safeParse(json).error).toBeUndefined();
  });

  it('pages the control lists with has_more and starting_after like the /v1/ ones', async () => {
    const first = await answer('/_sandbox/events?limit=1');
    expect(first.has_more).toBe(true);
    const second = await answer(`/_sandbox/events?limit=1&starting_after=${first.data[0].id}`);
    expect(second.data[0].id).not.toBe(first.data[0].id);
  });
});

describe('one answer of each kind is exactly its view', () => {
  it.each<[string, () => string, z.ZodType, boolean]>([
    ['a payment', () => `/v1/payments/${seeded.payment}`, paymentView(), true],
    ['a refund', () => `/v1/refunds/${seeded.refund}`, refundView(), true],
    ['a token', () => `/v1/tokens/${seeded.token}`, tokenView(), true],
    ['a webhook endpoint', () => `/v1/webhook_endpoints/${seeded.endpoint}`, webhookEndpointView(), true],
    ['a checkout session', () => `/v1/checkout/sessions/${seeded.session}`, checkoutSessionView(), true],
    ['an event', () => `/v1/events/${seeded.event}`, eventView(), true],
    ['a control event', () => `/_sandbox/events/${seeded.event}`, controlEventDetailView(), false],
    ['a delivery', () => `/_sandbox/deliveries/${seeded.delivery}`, deliveryDetailView(), false],
    ['a transaction', () => `/_sandbox/transactions/${seeded.transPending}`, controlTransactionView(), false],
    ['the clock', () => '/_sandbox/clock', clockView(), false],
    ['the health answer', () => '/_sandbox/health', healthView(), false],
  ])('%s', async (_name, path, schema, bearer) => {
    expect(strict(schema).safeParse(await answer(path(), bearer ? AUTH : {})).error).toBeUndefined();
  });

  it('the control event is the public event plus its subject and merchant', async () => {
    const pub = await answer(`/v1/events/${seeded.event}`, AUTH);
    const control = await answer(`/_sandbox/events/${seeded.event}`);
    expect(control).toMatchObject({ ...pub, resource_id: seeded.transApproved, merchant_id: 'mer_sandbox' });
  });

  it('the S2S payment answer, its authstatus answer and the refund-request answer', async () => {
    const created = await sb.request('POST', '/api/s2s', s2sBody({ ccno: '4242424242424242' }));
    expect(strict(s2sPaymentView()).safeParse(created.json).error).toBeUndefined();
    const status = await sb.request('GET', new URL(created.json.authstatus).pathname);
    expect(strict(s2sStatusView()).safeParse(status.json).error).toBeUndefined();
    const refund = await sb.request('POST', '/api/transactions/refund-request', {
      transID: created.json.transID,
      refundAmount: '1.00',
      public_key: 'pk_test_1001',
    });
    expect(refund.status, refund.text).toBe(200);
    expect(strict(s2sRefundView()).safeParse(refund.json).error).toBeUndefined();
  });

  it('the trigger answer', async () => {
    const res = await sb.request('POST', '/_sandbox/events/trigger', { type: 'payment.captured' });
    expect(res.status, res.text).toBe(201);
    expect(strict(triggerResultView()).safeParse(res.json).error).toBeUndefined();
  });
});
