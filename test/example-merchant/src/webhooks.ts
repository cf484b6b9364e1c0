// The shop's webhook handler: verify the signature over the raw body, then apply each event at most
// once (events arrive at least once, so duplicates and replays are normal), and remember the latest
// event per order. The gateway retries anything but a 2xx, so a bad signature answers 400 and a
// duplicate answers 200: it was handled before.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Orders } from './orders.js';

/** One signed JSON event (spec §6.2). */
export interface GatewayEvent {
  id: string;
  event: string;
  created_at: string;
  data: { reference?: string | null; id?: string; payment_id?: string | null; status?: string };
}

/** True when `header` ("sha256=<hex>") is the HMAC-SHA256 of the raw body with our secret. */
export function signatureIsValid(rawBody: string, header: string | undefined, secret: string): boolean {
  const expected = `sha256=${createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex')}`;
  const given = Buffer.from(header ?? '', 'utf8');
  const wanted = Buffer.from(expected, 'utf8');
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** What the handler did with one request, as it answers it. */
export type HandleResult =
  | { status: 200; outcome: 'applied' | 'duplicate' | 'ignored' }
  | { status: 400; outcome: 'bad_signature' | 'bad_body' };

/** Applies gateway events to orders, each event id once. */
export class WebhookHandler {
  /** Event ids already handled: a real shop stores them in a table with a unique key. */
  private readonly seen = new Set<string>();
  /** How many deliveries were recognised as duplicates (for the shop's logs, and the tests). */
  duplicates = 0;

  constructor(
    private readonly orders: Orders,
    private readonly secret: string,
  ) {}

  /** Handles one webhook request. */
  handle(rawBody: string, signature: string | undefined): HandleResult {
    if (!signatureIsValid(rawBody, signature, this.secret)) return { status: 400, outcome: 'bad_signature' };
    let event: GatewayEvent;
    try {
      event = JSON.parse(rawBody) as GatewayEvent;
    } catch {
      return { status: 400, outcome: 'bad_body' };
    }
    if (this.seen.has(event.id)) {
      this.duplicates++;
      return { status: 200, outcome: 'duplicate' };
    }
    this.seen.add(event.id);
    return { status: 200, outcome: this.apply(event) ? 'applied' : 'ignored' };
  }

  private apply(event: GatewayEvent): boolean {
    // We create every session with reference = our order id, so every event names its order.
    const order = event.data.reference ? this.orders.get(event.data.reference) : undefined;
    if (!order) return false;
    // Events may arrive out of order: only a newer event becomes the order's latest.
    if (!order.latestEvent || event.created_at >= order.latestEvent.createdAt) {
      order.latestEvent = { id: event.id, type: event.event, createdAt: event.created_at };
    }
    if (event.event === 'checkout.session.completed' && order.status !== 'paid') {
      order.status = 'paid';
      order.paymentId = event.data.payment_id ?? null;
    } else if (event.event === 'checkout.session.expired' && order.status === 'awaiting_payment') {
      order.status = 'expired';
    } else if (event.event === 'payment.declined') {
      order.declinedAttempts++;
    }
    return true;
  }
}
