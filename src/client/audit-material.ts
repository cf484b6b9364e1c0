// The events and secret a webhook audit sends with, taken from a running sandbox over the control
// API (`sandbox audit-webhooks --url`, the MCP tool audit_webhooks): its merchant's secret and
// terminal keys and its real events (a payment.authorized/payment.captured pair of one payment, an
// S2S event); a trigger makes the pair when there is none.
import { present } from '../errors.js';
import type { ControlEventView as EventView, TriggerResultView } from '../views/event.js';
import type { MerchantView } from '../views/merchant.js';
import type { AuditMaterial } from '../webhooks/audit/audit.js';
import { ClientError } from './client-error.js';
import type { ControlClient } from './control-client.js';

/** An event as the payload builders take it. */
type EventRecord = AuditMaterial['authorized'];

/** A control event back in the form the payload builders take. */
const toRecord = (e: EventView): EventRecord => ({
  id: e.id,
  type: e.event,
  resourceId: e.resource_id,
  merchantId: e.merchant_id,
  createdAt: Date.parse(e.created_at),
  data: e.data,
});

/**
 * The audit's material from the running sandbox `client` talks to: the merchant's secret and keys and
 * its real events; `fallbackS2s` gives the S2S event when the sandbox has none (null skips that case).
 * `field` names the merchant in an error (--merchant for the CLI).
 */
export async function sandboxAuditMaterial(
  client: ControlClient,
  merchantId: string | undefined,
  fallbackS2s: () => EventRecord | null,
  field = 'merchant',
): Promise<AuditMaterial> {
  const merchants = await client.listAll<MerchantView>('/merchants');
  const merchant = merchantId === undefined ? merchants[0] : merchants.find((m) => m.id === merchantId);
  if (!merchant)
    throw new ClientError(
      `${field} ${merchantId ?? ''} is not a merchant of the sandbox at ${client.base}; use one of ${merchants.map((m) => m.id).join(', ')}`,
    );
  const id = merchant.id;

  // The newest payment.captured whose payment.authorized is there too; a trigger makes the pair when there is none.
  let pair: { authorized: EventRecord; captured: EventRecord } | undefined;
  const captures = (await client.get<{ data: EventView[] }>('/events', { merchant: id, type: 'payment.captured', limit: 5 })).data;
  for (const captured of captures) {
    const [authorized] = (
      await client.get<{ data: EventView[] }>('/events', { resource: captured.resource_id, type: 'payment.authorized', limit: 1 })
    ).data;
    if (authorized) {
      pair = { authorized: toRecord(authorized), captured: toRecord(captured) };
      break;
    }
  }
  if (!pair) {
    const made = await client.post<TriggerResultView>('/events/trigger', { type: 'payment.captured', merchant: id });
    const authorizedId = present(
      made.events.find((e) => e.type === 'payment.authorized'),
      'the payment.authorized event of the trigger',
    ).id;
    pair = { authorized: toRecord(await client.get<EventView>(`/events/${authorizedId}`)), captured: toRecord(made.event) };
  }
  // An S2S event carries the spec §6.1 fields (transID, order_status); without one, the audit makes one.
  const recent = (await client.get<{ data: EventView[] }>('/events', { merchant: id, limit: 100 })).data;
  const s2sView = recent.find((e) => typeof e.data.transID === 'string' && typeof e.data.order_status === 'string');
  const s2s = s2sView ? toRecord(s2sView) : fallbackS2s();
  return {
    source: client.base,
    merchantId: id,
    secret: merchant.webhook_secret,
    keys:
      merchant.public_key !== null && merchant.private_key !== null
        ? { publicKey: merchant.public_key, privateKey: merchant.private_key }
        : null,
    ...pair,
    s2s,
  };
}
