// `sandbox trigger <event-type>`: produces one event of any docs/decisions.md type by driving the real
// services (a real payment with the right test token moved through its states, a real refund,
// chargeback, settlement or checkout session), so every object an event names exists and reads
// the same through the API. With a payment id it works on that payment where the event can
// follow from its state, and answers 409/422 where it cannot. The whole trigger is one
// transaction: it produces the event or changes nothing. How each kind of event is produced is in
// services/triggers/payments.ts, services/triggers/disputes.ts and services/triggers/checkout.ts.
import type { EventType } from '../../domain/event-types.js';
import { SandboxError } from '../../errors.js';
import { refuseControlTarget } from '../control-target.js';
import type { Merchant } from '../../store/credentials-repo.js';
import type { ServiceDeps } from '../deps.js';
import { checkoutSessionEvent } from './checkout.js';
import { chargebackEvent, settlementEvent } from './disputes.js';
import { paymentEvent } from './payments.js';
import { type SetFields, chosenFields, namedUnderSet } from './chosen-fields.js';
import type { Driven, Existing, TriggerInput, TriggerKit, TriggerResult, TriggerServices } from './types.js';

/** Produces realistic events on demand. */
export class Triggers {
  private readonly kit: TriggerKit;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly s: TriggerServices,
  ) {
    this.kit = { deps, s };
  }

  /** Produces one event of `input.type` (plus the real events leading to it); 404/409/422 when it cannot. */
  trigger(input: TriggerInput): TriggerResult {
    refuseControlTarget(input.to, 'to', this.deps.config);
    const { store } = this.deps;
    const existing = input.paymentId === undefined ? undefined : this.existing(input.paymentId);
    const merchant = this.merchant(input.merchantId, existing);
    const fields = chosenFields(input.type, input.set ?? {}, existing && named(existing));
    const produced = store.tx(() => {
      const mark = store.triggers.eventMark();
      const { resourceId, related } = this.drive(input.type, merchant, existing, fields, input.set ?? {});
      const events = store.triggers.eventsSince(mark);
      const event = events.filter((e) => e.type === input.type && e.resourceId === resourceId).pop();
      if (!event) {
        // Rolls the whole trigger back: nothing half-done is left behind.
        throw new SandboxError(
          'not_allowed',
          `${resourceId} did not produce ${input.type} (${this.describe(resourceId)}); nothing was changed`,
          'type',
        );
      }
      return { event, events, related };
    });
    // After the commit, so the replay finds the event's own deliveries to copy.
    const deliveryId = input.to ? this.s.deliveries.replayEvent(produced.event.id, input.to).id : null;
    return { ...produced, deliveryId };
  }

  // The API's own 400 on a chosen field names it as the trigger's request has it (set.amount).
  private drive(
    type: EventType,
    merchant: Merchant,
    existing: Existing | undefined,
    fields: SetFields,
    set: Record<string, unknown>,
  ): Driven {
    try {
      return this.driveAs(type, merchant, existing, fields);
    } catch (err) {
      throw namedUnderSet(err, set);
    }
  }

  // One case per event name, checked to be exhaustive: a new name in event-types.ts fails the type
  // check here until it has a way to be triggered.
  private driveAs(type: EventType, merchant: Merchant, existing: Existing | undefined, fields: SetFields): Driven {
    switch (type) {
      case 'checkout.session.completed':
      case 'checkout.session.expired':
        if (existing)
          throw new SandboxError(
            'not_allowed',
            `${type} comes from a checkout session the trigger creates and pays or expires; leave out payment_id`,
            'payment_id',
          );
        return checkoutSessionEvent(this.kit, merchant, type === 'checkout.session.completed', fields);
      case 'chargeback.created':
      case 'chargeback.won':
      case 'chargeback.lost':
        return chargebackEvent(this.kit, type, merchant, existing, fields);
      case 'settlement.created':
      case 'settlement.paid':
        return settlementEvent(this.kit, type, merchant, existing);
      default:
        return paymentEvent(this.kit, type, merchant, existing, fields);
    }
  }

  private existing(id: string): Existing {
    const payment = this.deps.store.payments.get(id);
    if (payment) return { family: 'v1', payment };
    const transaction = this.deps.store.transactions.get(id);
    if (transaction) return { family: 's2s', transaction };
    throw new SandboxError(
      'resource_missing',
      `no payment or transaction ${id}; pass a /v1/ payment id (pay_...) or an S2S transID, or leave payment_id out`,
      'payment_id',
    );
  }

  private merchant(merchantId: string | undefined, existing: Existing | undefined): Merchant {
    const { credentials } = this.deps.store;
    const id = existing ? (existing.family === 'v1' ? existing.payment.merchantId : existing.transaction.merchantId) : merchantId;
    if (existing && merchantId !== undefined && merchantId !== id) {
      throw new SandboxError(
        'parameter_invalid',
        `${named(existing)} belongs to merchant ${id}, not ${merchantId}; leave merchant out when you pass payment_id`,
        'merchant',
      );
    }
    const merchant = id === undefined ? credentials.merchants()[0] : credentials.merchant(id);
    if (!merchant)
      throw new SandboxError('resource_missing', `no merchant ${id}; use a merchant id of the fixtures, e.g. mer_sandbox`, 'merchant');
    return merchant;
  }

  private describe(resourceId: string): string {
    const payment = this.deps.store.payments.get(resourceId);
    if (payment) return `payment ${payment.id} is ${payment.status}`;
    const t = this.deps.store.transactions.get(resourceId);
    return t ? `order_status ${t.orderStatus}` : 'no such object';
  }
}

function named(existing: Existing): string {
  return existing.family === 'v1' ? `payment ${existing.payment.id}` : `transaction ${existing.transaction.transId}`;
}
