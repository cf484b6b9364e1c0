// The control API's event requests: the query of GET /_sandbox/events and the body of
// POST /_sandbox/events/trigger (http/control/deliveries.ts and http/control/disputes.ts, and trigger() of the library).
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { EVENT_TYPE_NAMES, unknownEventProblem } from '../domain/event-types.js';
import { limit, since } from './deliveries.js';
import { httpUrl } from './v1-common.js';

const merchant = lazySchema(() => z.string().min(1).optional().describe('a merchant id such as mer_sandbox'));

/** GET /_sandbox/events query. */
export const eventQuery = lazySchema(() =>
  z
    .object({
      type: z.string().optional().describe('an event type such as payment.authorized'),
      resource: z.string().optional().describe('the id of the object the event is about (transID, pay_...)'),
      merchant: z.string().optional().describe('a merchant id such as mer_sandbox'),
      since: since(),
      limit: limit(),
      starting_after: z.string().optional().describe('the id of the last event of the previous page'),
    })
    .strict(),
);

/** POST /_sandbox/events/trigger body. */
export const triggerSchema = lazySchema(() =>
  z.strictObject({
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
    to: httpUrl('to', 'http://127.0.0.1:3000/webhooks')
      .optional()
      .describe('an http(s) URL such as http://127.0.0.1:3000/webhooks, to also deliver the event to (once, never retried)'),
    merchant: merchant(),
    set: z
      .record(z.string().min(1).max(100), z.unknown())
      .optional()
      .describe(
        'fields of the request that creates the event\'s object, by dotted path, e.g. {"amount": 1500, "metadata.order_id": "ord_42"}; which fields each event takes: sandbox trigger --help',
      ),
  }),
);
