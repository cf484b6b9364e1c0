// Chargebacks, settlements and event triggers in the control API (/_sandbox/...), used by
// `sandbox chargeback`, `sandbox settle` and `sandbox trigger`. Behind the control guard
// (middleware/control-guard.ts) like all of /_sandbox. Money is integer minor units in both families here.
import { Hono } from 'hono';
import * as z from 'zod';
import { currencyCode, queryInteger } from '../contracts/v1-common.js';
import { DURATION_PATTERN } from '../contracts/patterns.js';
import { parseDuration } from '../domain/duration.js';
import { EVENT_TYPE_NAMES, unknownEventProblem, type EventType } from '../domain/event-types.js';
import type { Services } from '../services/services.js';
import { CHARGEBACK_REASONS, CHARGEBACK_STATUSES, orList, SETTLEMENT_STATUSES } from '../domain/vocabularies.js';
import type { AppDeps, AppEnv } from './app.js';
import type { OpenApiRoute } from './openapi.js';
import { controlRoute } from './control-route.js';
import { httpUrl } from '../contracts/v1-common.js';
import { readJson, readOptionalJson, validateQuery } from './validation.js';
import { validate } from '../contracts/validate.js';
import { chargebackView, toChargebackView } from '../views/chargeback.js';
import { toControlEventView, triggerResultView } from '../views/event.js';
import { listOf, listView, wholeList } from '../views/list.js';
import { settlementView } from '../views/settlement.js';
import { readPage } from '../services/pagination.js';

const limit = queryInteger(1, 1000).optional().describe('a whole number from 1 to 1000 (default 50)');
const merchant = z.string().min(1).optional().describe('a merchant id such as mer_sandbox');
const url = httpUrl('to', 'http://127.0.0.1:3000/webhooks');

/** POST /_sandbox/chargebacks body: exactly one of transID / payment_id. */
export const openChargebackSchema = z
  .strictObject({
    transID: z
      .string()
      .regex(/^\d{1,32}$/)
      .optional()
      .describe('the S2S transID of an approved transaction, e.g. "412345678901234"'),
    payment_id: z
      .string()
      .regex(/^pay_[A-Za-z0-9]{1,64}$/)
      .optional()
      .describe('the id of a captured /v1/ payment, e.g. "pay_3kTMd9Qx81LbZc0a"'),
    reason: z
      .enum(CHARGEBACK_REASONS)
      .optional()
      .describe(`one of ${CHARGEBACK_REASONS.join(', ')} (default fraudulent)`),
    amount: z
      .number()
      .int()
      .positive()
      .max(99_999_999_999)
      .optional()
      .describe('the disputed amount in minor units, e.g. 1050 for EUR 10.50 (default: all that is not refunded)'),
  })
  // Exactly one of the two, in JSON Schema terms.
  .meta({ oneOf: [{ required: ['transID'] }, { required: ['payment_id'] }] })
  .superRefine((body, ctx) => {
    if (body.transID === undefined && body.payment_id === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['payment_id'],
        message:
          'payment_id or transID is required: send {"payment_id":"pay_..."} for a /v1/ payment or {"transID":"..."} for an S2S transaction',
      });
    if (body.transID !== undefined && body.payment_id !== undefined)
      ctx.addIssue({ code: 'custom', path: ['transID'], message: 'send either transID or payment_id, not both' });
  });

/** GET /_sandbox/chargebacks query. */
export const chargebackQuery = z.strictObject({
  status: z.enum(CHARGEBACK_STATUSES).optional().describe(orList(CHARGEBACK_STATUSES)),
  payment: z.string().optional().describe('a /v1/ payment id or S2S transID'),
  merchant,
  limit,
});

/** POST /_sandbox/settlements body (optional). */
export const settleSchema = z.strictObject({
  merchant,
  currency: currencyCode().optional().describe('an ISO 4217 currency code such as "EUR" (default: every currency)'),
  pay_after: z
    .string()
    .refine((text) => parseDuration(text) !== undefined, { message: 'pay_after must be a duration such as "2d", "1h" or "0s"' })
    .meta({ pattern: DURATION_PATTERN })
    .optional()
    .describe('sandbox time until the payout (settlement.paid), a duration such as "2d", "1h" or "0s" for at once (default 2d)'),
});

/** GET /_sandbox/settlements query. */
export const settlementQuery = z.strictObject({
  status: z.enum(SETTLEMENT_STATUSES).optional().describe(orList(SETTLEMENT_STATUSES)),
  merchant,
  limit,
});

/** POST /_sandbox/events/trigger body. */
export const triggerSchema = z.strictObject({
  type: z
    .string()
    .superRefine((name, ctx) => {
      const problem = unknownEventProblem('type', name);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ enum: EVENT_TYPE_NAMES })
    .describe(`an event type: ${EVENT_TYPE_NAMES.join(', ')}`),
  payment_id: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('an existing /v1/ payment id (pay_...) or S2S transID to produce the event on (default: a new payment)'),
  to: url.optional().describe('an http(s) URL such as http://127.0.0.1:3000/webhooks, to also deliver the event to (once, never retried)'),
  merchant,
});

/** A settlement with the items it pays out. */
function settlementWithItems(services: Services, id: string) {
  return services.settlements.view(services.settlements.get(id));
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
    const body = validate(openChargebackSchema, await readJson(c));
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
    const body = validate(settleSchema, await readOptionalJson(c));
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
    const body = validate(triggerSchema, await readJson(c));
    const result = services.triggers.trigger({
      type: body.type as EventType,
      paymentId: body.payment_id,
      to: body.to,
      merchantId: body.merchant,
    });
    const delivery = result.deliveryId ? services.deliveries.view(result.deliveryId) : undefined;
    return c.json(
      {
        type: body.type,
        event: toControlEventView(result.event),
        events: result.events.map((e) => ({ id: e.id, type: e.type, resource_id: e.resourceId })),
        related: result.related,
        delivery: delivery ?? null,
      },
      201,
    );
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
    'Batch every captured, unsettled payment into settlements per merchant and currency, clawing back refunds and lost chargebacks on payments settled earlier (settlement.created, then settlement.paid after pay_after)',
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
    'Produce an event of any type by driving the real services (optionally on an existing payment, optionally also delivered to a URL)',
    'the event, every event the trigger recorded, the related object ids and the manual delivery',
    {
      responseSchema: triggerResultView,
      body: triggerSchema,
      status: 201,
      errors: ['resource_missing', 'invalid_state', 'not_allowed', 'not_refundable'],
    },
  ),
];
