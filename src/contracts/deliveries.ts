// The webhook workbench's delivery requests in the control API: the list's query, retry-failed and
// replay (of a delivery or an event). http/control/deliveries.ts serves them.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { parseSince } from '../domain/since.js';
import { DELIVERY_STATUSES, orList } from '../domain/vocabularies.js';
import { SINCE_PATTERN } from './patterns.js';
import { httpUrl, queryInteger } from './v1-common.js';

/** `since` of the lists and of retry-failed. */
export const since = lazySchema(() =>
  z
    .string()
    .refine((text) => parseSince(text, 0) !== undefined, {
      message: 'since must be a duration back from now such as "10m" or "1h", or an ISO time such as "2026-01-15T12:00:00Z"',
    })
    .meta({ pattern: SINCE_PATTERN })
    .optional()
    .describe('a duration back from now such as "10m" or "1h", or an ISO time such as "2026-01-15T12:00:00Z"'),
);
/** `limit` of the lists. */
export const limit = lazySchema(() => queryInteger(1, 1000).optional().describe('a whole number from 1 to 1000'));
const url = lazySchema(() =>
  httpUrl('to', 'http://127.0.0.1:3000/webhooks').optional().describe('an http(s) URL such as http://127.0.0.1:3000/webhooks'),
);

/** GET /_sandbox/deliveries query. */
export const deliveryQuery = lazySchema(() =>
  z
    .object({
      status: z.enum(DELIVERY_STATUSES).optional().describe(orList(DELIVERY_STATUSES)),
      event: z.string().optional().describe('an event type such as payment.authorized'),
      event_id: z.string().optional().describe('an event id (evt_...)'),
      url: z.string().optional().describe('the exact webhook URL'),
      merchant: z.string().optional().describe('a merchant id such as mer_sandbox'),
      since: since(),
      limit: limit(),
      starting_after: z.string().optional().describe('the id of the last delivery of the previous page'),
    })
    .strict(),
);

/** POST .../replay body (optional). */
export const replayBody = lazySchema(() => z.object({ to: url() }).strict());
/** POST /_sandbox/deliveries/retry-failed body (optional). */
export const retryBody = lazySchema(() => z.object({ since: since() }).strict());
