// The shop's order book, in memory (a real shop keeps it in its database). An order moves
// awaiting_payment -> paid | expired and never back: the webhook, not the customer's return, moves it.

/** Where an order stands. */
export type OrderStatus = 'awaiting_payment' | 'paid' | 'expired';

/** One order of the shop. */
export interface Order {
  id: string;
  amount: number;
  currency: string;
  status: OrderStatus;
  /** The gateway's checkout session for this order. */
  sessionId: string | null;
  /** The gateway's payment that paid it. */
  paymentId: string | null;
  /** The latest gateway event applied to this order (id, type, time), for support and reconciliation. */
  latestEvent: { id: string; type: string; createdAt: string } | null;
  /** Declined attempts the customer made before paying (or giving up). */
  declinedAttempts: number;
}

/** An in-memory order book. */
export class Orders {
  private readonly byId = new Map<string, Order>();
  private next = 1000;

  /** Opens a new order waiting for payment. */
  create(amount: number, currency: string): Order {
    const order: Order = {
      id: `order_${++this.next}`,
      amount,
      currency,
      status: 'awaiting_payment',
      sessionId: null,
      paymentId: null,
      latestEvent: null,
      declinedAttempts: 0,
    };
    this.byId.set(order.id, order);
    return order;
  }

  /** The order, or undefined. */
  get(id: string): Order | undefined {
    return this.byId.get(id);
  }
}
