// The webhook attempts being sent right now, counted by receiver (a claim leaves a receiver at its
// cap out, so one dead receiver cannot take every slot) and by merchant (a merchant's reset waits
// for its own attempts only).

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

/** The attempts in flight and their counts by receiver and by merchant. */
export class InFlight {
  private readonly running = new Set<Promise<void>>();
  /** Attempts in flight by receiver (receiverOf), as a claim reads them. */
  readonly perReceiver = new Map<string, number>();
  private readonly perMerchant = new Map<string, number>();

  /** Attempts in flight. */
  get size(): number {
    return this.running.size;
  }

  /** Attempts in flight of one merchant's deliveries. */
  of(merchantId: string): number {
    return this.perMerchant.get(merchantId) ?? 0;
  }

  /** Counts the attempt `send` starts until it settles, then calls `done`. */
  track(delivery: { url: string; merchantId: string }, send: () => Promise<void>, done: () => void): void {
    const receiver = receiverOf(delivery.url);
    count(this.perReceiver, receiver, 1);
    count(this.perMerchant, delivery.merchantId, 1);
    const running = send().finally(() => {
      this.running.delete(running);
      count(this.perReceiver, receiver, -1);
      count(this.perMerchant, delivery.merchantId, -1);
      done();
    });
    this.running.add(running);
  }

  /** Resolves once every attempt in flight now has settled. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
