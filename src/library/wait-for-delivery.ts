// waitForDelivery() of the startSandbox() handle: resolves with the newest matching delivery, woken
// by the activity bus (a poll is the backstop); rejects after its timeout listing every delivery so
// far, at once for an unknown event name or when every matching delivery failed for good, and when
// the sandbox closes while it waits.
import { unknownEventProblem } from '../domain/event-types.js';
import { SandboxError } from '../errors.js';
import type { DeliveryStatus } from '../domain/vocabularies.js';
import type { Services } from '../services/services.js';
import { describeAttempts, describeDelivery, toSandboxDelivery, type SandboxDelivery } from './deliveries.js';
import type { WaitForDeliveryOptions } from './handle-types.js';

type WaitedStatus = NonNullable<WaitForDeliveryOptions['status']>;

/** Every delivery, newest last, with attempts and parsed bodies. */
export function allDeliveries(services: Services): SandboxDelivery[] {
  return services.deliveries
    .records({ limit: 1_000_000 })
    .reverse()
    .map((d) => toSandboxDelivery(d, services.deliveries.attemptsOf(d.id)));
}

/** The deliveries that match `wanted` (of one status, or of any), newest first. */
function matching(services: Services, wanted: WaitForDeliveryOptions, rowStatus?: DeliveryStatus): SandboxDelivery[] {
  return services.deliveries
    .records({ eventType: wanted.event, url: wanted.url, status: rowStatus, limit: 1000 })
    .map((row) => toSandboxDelivery(row, services.deliveries.attemptsOf(row.id)))
    .filter((delivery) => !wanted.match || wanted.match(delivery));
}

/** What a wait is for, in words: "succeeded delivery of payment.authorized to http://...". */
function wantedText(wanted: WaitForDeliveryOptions, status: WaitedStatus): string {
  return [
    `${status === 'any' ? '' : `${status} `}delivery`,
    wanted.event && `of ${wanted.event}`,
    wanted.url && `to ${wanted.url}`,
    wanted.match && 'matching the given test',
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * Waiting for a success is hopeless once every matching delivery failed for good (retries
 * exhausted): the rejection says so at once, with their attempts, instead of timing out.
 */
function hopeless(services: Services, wanted: WaitForDeliveryOptions, status: WaitedStatus): Error | undefined {
  if (status !== 'succeeded') return undefined;
  const all = matching(services, wanted);
  if (all.length === 0 || !all.every((d) => d.status === 'failed')) return undefined;
  const log = all.flatMap((d) => [`  ${describeDelivery(d)}`, ...describeAttempts(d)]).join('\n');
  return new Error(
    `waitForDelivery: no ${wantedText(wanted, status)} will come: ${all.length === 1 ? 'the only matching delivery' : `all ${all.length} matching deliveries`} failed for good (no retries left). Attempts:\n${log}`,
  );
}

/** The waits of one handle. */
export class DeliveryWaits {
  /** The reject of every wait still running, for close(). */
  private readonly cancels = new Set<(reason: Error) => void>();

  constructor(private readonly services: Services) {}

  /** waitForDelivery(): see SandboxHandle. */
  wait(wanted: WaitForDeliveryOptions = {}): Promise<SandboxDelivery> {
    const status = wanted.status ?? 'succeeded';
    const timeoutMs = wanted.timeoutMs ?? 5000;
    const unknown = wanted.event === undefined ? undefined : unknownEventProblem('event', wanted.event);
    if (unknown) return Promise.reject(new SandboxError('parameter_invalid', `waitForDelivery: ${unknown}`, 'event'));
    const { services } = this;
    return new Promise((resolve, reject) => {
      const finish = () => {
        unsubscribe();
        clearInterval(poll);
        clearTimeout(timer);
        this.cancels.delete(cancel);
      };
      const check = () => {
        const found = matching(services, wanted, status === 'any' ? undefined : status)[0];
        if (found) {
          finish();
          return resolve(found);
        }
        const failed = hopeless(services, wanted, status);
        if (failed) cancel(failed);
      };
      const cancel = (reason: Error) => {
        finish();
        reject(reason);
      };
      const unsubscribe = services.activity.subscribe((a) => {
        if (a.kind === 'delivery.attempted' || a.kind === 'event.created') setImmediate(check);
      });
      // The activity bus wakes us at once; the poll is a backstop for changes made by other means.
      const poll = setInterval(check, 50);
      const timer = setTimeout(() => {
        const seen = allDeliveries(services);
        const list = seen.length ? seen.map((d) => `  ${describeDelivery(d)}`).join('\n') : '  none';
        cancel(
          new Error(
            `waitForDelivery: no ${wantedText(wanted, status)} within ${timeoutMs} ms. Deliveries so far (${seen.length}):\n${list}`,
          ),
        );
      }, timeoutMs);
      this.cancels.add(cancel);
      check();
    });
  }

  /** Rejects every wait still running with an Error of `message` (the sandbox is closing). */
  cancelAll(message: string): void {
    for (const cancel of [...this.cancels]) cancel(new Error(message));
  }
}
