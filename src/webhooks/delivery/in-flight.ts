// The webhook attempts being sent right now, counted by merchant (a merchant's reset waits for its
// own attempts only), and the receiver of a URL (one dead receiver cannot take every slot).

/**
 * The receiver a webhook URL goes to, for the in-flight cap: its origin (scheme, host, port), so a
 * dead receiver with per-order paths (/hook/1, /hook/2...) holds one share of the slots, not all.
 * A URL with no origin (unparseable, or not http) is its own receiver: its attempt fails normally.
 */
export function receiverOf(url: string): string {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? url : origin;
  } catch {
    return url;
  }
}

/** Adds `by` to the count of `key`, dropping counts that reach 0. */
function count(counts: Map<string, number>, key: string, by: 1 | -1): void {
  const left = (counts.get(key) ?? 0) + by;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

/** Attempts in flight, what the webhook attempts of a reset wait for. */
export interface DeliveriesInFlight {
  /** Attempts currently being sent. */
  readonly busy: number;
  /** Attempts of one merchant's deliveries currently being sent. */
  busyFor(merchantId: string): number;
}

/** The attempts in flight, counted by merchant (per receiver, webhooks/delivery/queues.ts counts them). */
export class InFlight {
  private count = 0;
  private readonly perMerchant = new Map<string, number>();
  private idle: Array<() => void> = [];

  /** Attempts in flight. */
  get size(): number {
    return this.count;
  }

  /** Attempts in flight of one merchant's deliveries. */
  of(merchantId: string): number {
    return this.perMerchant.get(merchantId) ?? 0;
  }

  /** An attempt of the merchant's delivery started. */
  add(merchantId: string): void {
    this.count++;
    count(this.perMerchant, merchantId, 1);
  }

  /** An attempt of the merchant's delivery ended (recorded, or given up). */
  remove(merchantId: string): void {
    this.count--;
    count(this.perMerchant, merchantId, -1);
    if (this.count === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  /** Resolves once no attempt is in flight. */
  settled(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }
}
