// Chargebacks, settlements and event triggers in the control API (/_sandbox/...), used by
// `sandbox chargeback`, `sandbox settle` and `sandbox trigger`. Behind the control guard
// (middleware/control-guard.ts) like all of /_sandbox. Money is integer minor units in both families here.
import { Hono } from 'hono';
import { chargebackQuery, openChargebackSchema } from '../../contracts/chargebacks.js';
import { triggerSchema } from '../../contracts/events.js';
import { settlementQuery, settleSchema } from '../../contracts/settlements.js';
import { parseDuration } from '../../domain/duration.js';
import type { EventType } from '../../domain/event-types.js';
import type { Services } from '../../services/services.js';
import type { AppDeps, AppEnv } from '../app-env.js';
import type { OpenApiRoute } from '../openapi/route.js';
import { controlRoute } from './control-route.js';
import { validateQuery, validJson, validOptionalJson } from '../validation.js';
import { chargebackView, toChargebackView } from '../../views/chargeback.js';
import { toDeliveryView } from '../../views/delivery.js';
import { toTriggerResultView, triggerResultView } from '../../views/event.js';
import { listOf, listView, wholeList } from '../../views/list.js';
import { settlementView, toSettlementView } from '../../views/settlement.js';
import { readPage } from '../../services/pagination.js';

/** A settlement with the items it pays out. */
function settlementWithItems(services: Services, id: string) {
  const { settlements } = services;
  const s = settlements.get(id);
  return toSettlementView(s, settlements.items(s.id), settlements.adjustments(s.id), settlements.feeTerms(s.currency));
}

/** /chargebacks, /settlements and /events/trigger under /_sandbox. */
export function controlDisputeRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  chargebackRoutes(app, deps.services);
  settlementRoutes(app, deps.services);
  triggerRoute(app, deps.services);
  return app;
}

/** Open, list, read and decide chargebacks. */
function chargebackRoutes(app: Hono<AppEnv>, services: Services) {
  app.post('/chargebacks', async (c) => {
    const body = await validJson(c, openChargebackSchema);
    const cb = services.chargebacks.open({ transId: body.transID, paymentId: body.payment_id, reason: body.reason, amount: body.amount });
    return c.json(toChargebackView(cb), 201);
  });

  app.get('/chargebacks', (c) => {
    const q = validateQuery(c, chargebackQuery);
    const page = readPage(q.limit ?? 50, (n) =>
      services.chargebacks.list({ status: q.status, subjectId: q.payment, merchantId: q.merchant, limit: n }),
    );
    return c.json(listView(page, toChargebackView));
  });

  app.get('/chargebacks/:id', (c) => c.json(toChargebackView(services.chargebacks.get(c.req.param('id')))));
  app.post('/chargebacks/:id/win', (c) => c.json(toChargebackView(services.chargebacks.win(c.req.param('id')))));
  app.post('/chargebacks/:id/lose', (c) => c.json(toChargebackView(services.chargebacks.lose(c.req.param('id')))));
}

/** Settle, list and read settlements. */
function settlementRoutes(app: Hono<AppEnv>, services: Services) {
  app.post('/settlements', async (c) => {
    const body = await validOptionalJson(c, settleSchema);
    const created = services.settlements.settle({
      merchantId: body.merchant,
      currency: body.currency,
      payAfterMs: body.pay_after === undefined ? undefined : parseDuration(body.pay_after),
    });
    return c.json(listView(wholeList(created), (s) => settlementWithItems(services, s.id)));
  });

  app.get('/settlements', (c) => {
    const q = validateQuery(c, settlementQuery);
    const page = readPage(q.limit ?? 50, (n) => services.settlements.list({ status: q.status, merchantId: q.merchant, limit: n }));
    return c.json(listView(page, (s) => settlementWithItems(services, s.id)));
  });

  app.get('/settlements/:id', (c) => c.json(settlementWithItems(services, c.req.param('id'))));
}

/** Produce an event on demand. */
function triggerRoute(app: Hono<AppEnv>, services: Services) {
  app.post('/events/trigger', async (c) => {
    const body = await validJson(c, triggerSchema);
    const type = body.type as EventType;
    const result = services.triggers.trigger({ type, paymentId: body.payment_id, to: body.to, merchantId: body.merchant, set: body.set });
    const delivery = result.deliveryId ? toDeliveryView(services.deliveries.byId(result.deliveryId)) : null;
    return c.json(toTriggerResultView(type, result, delivery), 201);
  });
}

/** The routes of this module, for /openapi.json. */
export const disputesOpenApi: OpenApiRoute[] = [
  controlRoute(
    'post',
    '/chargebacks',
    'Open a chargeback on an S2S transaction (transID) or a /v1/ payment (payment_id)',
    'the chargeback, status open',
    {
      responseSchema: chargebackView,
      body: openChargebackSchema,
      status: 201,
      errors: ['resource_missing', 'invalid_state', 'amount_too_large'],
    },
  ),
  controlRoute('get', '/chargebacks', 'List chargebacks, newest first', 'the chargebacks', {
    responseSchema: listOf(chargebackView),
    query: chargebackQuery,
  }),
  controlRoute('get', '/chargebacks/:id', 'One chargeback', 'the chargeback', { responseSchema: chargebackView }),
  controlRoute(
    'post',
    '/chargebacks/:id/win',
    'Decide a chargeback for the merchant (chargeback.won); the id may also be the transID / payment id of an open chargeback',
    'the chargeback, status won',
    { responseSchema: chargebackView, errors: ['invalid_state'] },
  ),
  controlRoute(
    'post',
    '/chargebacks/:id/lose',
    'Decide a chargeback for the cardholder (chargeback.lost); the id may also be the transID / payment id of an open chargeback',
    'the chargeback, status lost',
    { responseSchema: chargebackView, errors: ['invalid_state'] },
  ),
  controlRoute(
    'post',
    '/settlements',
    'Batch every captured, unsettled payment into settlements per merchant and currency, clawing back refunds, lost chargebacks and SEPA returns on payments settled earlier (settlement.created, then settlement.paid after pay_after)',
    'the settlements created, with their payments and clawbacks',
    { responseSchema: listOf(settlementView), body: settleSchema, bodyOptional: true, errors: ['resource_missing'] },
  ),
  controlRoute('get', '/settlements', 'List settlements, newest first, with their payments and clawbacks', 'the settlements', {
    responseSchema: listOf(settlementView),
    query: settlementQuery,
  }),
  controlRoute('get', '/settlements/:id', 'One settlement with its payments, clawbacks, fees and net', 'the settlement', {
    responseSchema: settlementView,
  }),
  controlRoute(
    'post',
    '/events/trigger',
    'Produce an event of any type by driving the real services (optionally on an existing payment, with chosen fields of the request that makes its object, optionally also delivered to a URL)',
    'the event, every event the trigger recorded, the related object ids and the manual delivery',
    {
      responseSchema: triggerResultView,
      body: triggerSchema,
      status: 201,
      errors: ['resource_missing', 'invalid_state', 'not_allowed', 'not_refundable'],
    },
  ),
];
