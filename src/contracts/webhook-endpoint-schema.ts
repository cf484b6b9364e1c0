// Bodies and queries of /v1/webhook_endpoints and /v1/events. Descriptions are the hints in
// error messages and in the OpenAPI document.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { EVENT_TYPE_NAMES, isEventType } from '../domain/event-types.js';
import { httpUrl, listQueryFields, unixSeconds } from './v1-common.js';
import { SIGNATURE_MODES } from '../domain/vocabularies.js';
import { present } from '../errors.js';

const url = lazySchema(() => httpUrl('url', 'https://shop.example/webhooks'));

const eventName = lazySchema(() =>
  z
    .string()
    .refine((name) => name === '*' || isEventType(name), {
      error: (issue) =>
        `${JSON.stringify(issue.input)} is not an event name; use "*" for every event or names from: ${EVENT_TYPE_NAMES.join(', ')}`,
    })
    .meta({ enum: ['*', ...EVENT_TYPE_NAMES] }),
);

const events = lazySchema(() =>
  z
    .array(eventName())
    .min(1)
    .max(EVENT_TYPE_NAMES.length)
    .refine((names) => !names.includes('*') || names.length === 1, {
      error: 'events ["*"] already means every event; send ["*"] alone or a list of names',
    })
    // "*" only alone, in JSON Schema terms: no list holding "*" has a second item.
    .meta({ not: { contains: { const: '*' }, minItems: 2 } })
    .transform((names) => [...new Set(names)]),
);

// The description goes last (after .optional()): it is the hint validation errors show.
const HINTS = {
  events: 'a non-empty list of event names such as ["payment.authorized", "refund.succeeded"], or ["*"] for every event',
  description: 'a note for yourself, up to 500 characters',
  enabled: 'true to send events to the endpoint, false to pause it',
  signature:
    'how its deliveries are signed: "plain", "timestamped" or "standard" (Standard Webhooks); null follows the sandbox\'s --signature',
};
const description = lazySchema(() => z.string().max(500));
const enabled = lazySchema(() => z.boolean());
const signature = lazySchema(() => z.enum(SIGNATURE_MODES).nullable());

/** POST /v1/webhook_endpoints. Unknown fields are refused so a typo does not pass silently. */
export const createEndpointSchema = lazySchema(() =>
  z.strictObject({
    url: url(),
    events: events().describe(HINTS.events),
    description: description().optional().describe(HINTS.description),
    enabled: enabled().optional().describe(HINTS.enabled),
    signature: signature().optional().describe(HINTS.signature),
  }),
);

/** POST or PATCH /v1/webhook_endpoints/{id}: any of the fields; absent ones stay as they are. */
export const updateEndpointSchema = lazySchema(() =>
  z.strictObject({
    url: url().optional().describe(present(url().description, "the url field's description")),
    events: events().optional().describe(HINTS.events),
    description: description().optional().describe(HINTS.description),
    enabled: enabled().optional().describe(HINTS.enabled),
    signature: signature().optional().describe(HINTS.signature),
  }),
);

/** GET /v1/webhook_endpoints. */
export const listEndpointsQuery = lazySchema(() => z.strictObject({ ...listQueryFields() }));

/** GET /v1/events. */
export const listEventsQuery = lazySchema(() =>
  z.strictObject({
    ...listQueryFields(),
    type: z
      .string()
      .refine(isEventType, {
        error: (issue) => `type ${JSON.stringify(issue.input)} is not an event name; use one of: ${EVENT_TYPE_NAMES.join(', ')}`,
      })
      .meta({ enum: [...EVENT_TYPE_NAMES] })
      .optional()
      .describe('one event name, e.g. "payment.authorized"'),
    resource_id: z.string().min(1).optional().describe('only events about this object, e.g. a payment id or an S2S transID'),
    'created[gte]': unixSeconds('only events created at or after this time'),
    'created[gt]': unixSeconds('only events created after this time'),
    'created[lte]': unixSeconds('only events created at or before this time'),
    'created[lt]': unixSeconds('only events created before this time'),
  }),
);
