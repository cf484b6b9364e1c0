// Waiting for a webhook delivery over the control API: `sandbox wait` and the MCP tool
// wait_for_delivery poll GET /_sandbox/deliveries until a delivery of the event (or of a payment's
// events) to the URL is in the state asked for, or the deadline passes, or waiting is hopeless:
// every matching delivery failed for good (retries exhausted) while a success was asked for.
import type { DeliveryWaitStatus } from '../domain/vocabularies.js';
import type { ControlEventView } from '../views/event.js';
import type { DeliveryView } from '../views/delivery.js';
import type { ListView } from '../views/list.js';
import type { ControlClient } from './control-client.js';

/** What a wait is for; every field given must match. */
export interface WantedDelivery {
  event?: string;
  /** Only deliveries of the events about this payment (pay_... or an S2S transID). */
  payment?: string;
  url?: string;
  merchant?: string;
  status: DeliveryWaitStatus;
}

/** How a wait ended: the delivery found, or why none was. */
export type WaitOutcome = { found: DeliveryView } | { found: undefined; failedForGood: boolean };

const POLL_MS = 250;

/** The newest delivery matching `wanted` in `status` (any status when undefined). */
async function newest(client: ControlClient, wanted: WantedDelivery, status?: string): Promise<DeliveryView | undefined> {
  const filter = { event: wanted.event, url: wanted.url, merchant: wanted.merchant, status };
  if (wanted.payment === undefined) return (await client.get<ListView<DeliveryView>>('/deliveries', { ...filter, limit: 1 })).data[0];
  const events = await client.get<ListView<ControlEventView>>('/events', { resource: wanted.payment, type: wanted.event, limit: 100 });
  for (const event of events.data) {
    const [found] = (await client.get<ListView<DeliveryView>>('/deliveries', { ...filter, event_id: event.id, limit: 1 })).data;
    if (found) return found;
  }
  return undefined;
}

/** Waits until a delivery matches `wanted`, or `deadline` (ms since the epoch) passes, or no success can come. */
export async function waitForDelivery(client: ControlClient, wanted: WantedDelivery, deadline: number): Promise<WaitOutcome> {
  for (;;) {
    const found = await newest(client, wanted, wanted.status === 'any' ? undefined : wanted.status);
    if (found) return { found };
    // Hopeless once matching deliveries exist and none is pending: every one failed for good. The
    // one that was pending at the first look may have succeeded since: looked for again after the
    // pending look, or its success would read as a failure.
    if (wanted.status === 'succeeded' && !(await newest(client, wanted, 'pending'))) {
      const since = await newest(client, wanted, 'succeeded');
      if (since) return { found: since };
      if (await newest(client, wanted)) return { found: undefined, failedForGood: true };
    }
    if (Date.now() >= deadline) return { found: undefined, failedForGood: false };
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));
  }
}

/** One line per delivery: id, event, target, status, attempts and the last answer. */
export function deliveryLine(
  d: Pick<DeliveryView, 'id' | 'event' | 'url' | 'status' | 'attempts' | 'last_response_status' | 'last_error'>,
): string {
  const answer =
    d.last_response_status !== null
      ? `last answer ${d.last_response_status}`
      : d.last_error
        ? `last error: ${d.last_error}`
        : 'not tried yet';
  return `${d.id} ${d.event} -> ${d.url} ${d.status} after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'} (${answer})`;
}
