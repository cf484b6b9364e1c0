// Signals between services: the fan-outs, where the one that announces does not know who listens.
// A payment's status changed: hosted checkout follows its payments, and since it is built from the
// payments service it cannot also be that service's constructor argument. The state was replaced:
// whatever keeps state in memory (the fault rules) reloads it. One typed map, like the ActivityBus;
// unlike it, listeners run at once, in the order they subscribed, and a throw reaches the
// announcer (inside a payment's transaction, it rolls the change back).
import type { Payment } from '../store/payments-repo.js';

/** What replaced the whole state: a reset to the fixtures or an imported snapshot. */
export type StateReplacement = 'reset' | 'import';

/** Every signal and what its listeners get. */
export interface SignalMap {
  /** A payment's status changed (inside its transaction): hosted checkout completes its session. */
  'payment.status': [payment: Payment];
  /** A reset or import committed: what keeps state in memory (the fault rules) reloads it. */
  'state.replaced': [how: StateReplacement];
}

/** A typed emitter of the SignalMap. */
export class Signals {
  private readonly listeners: { [K in keyof SignalMap]: Array<(...args: SignalMap[K]) => void> } = {
    'payment.status': [],
    'state.replaced': [],
  };

  /** Tells every listener of `name`, synchronously; a listener's throw reaches the announcer. */
  emit<K extends keyof SignalMap>(name: K, ...args: SignalMap[K]): void {
    for (const listener of this.listeners[name]) listener(...args);
  }

  /** Listens to `name` from now on (for the life of the sandbox). */
  on<K extends keyof SignalMap>(name: K, listener: (...args: SignalMap[K]) => void): void {
    this.listeners[name].push(listener);
  }
}
