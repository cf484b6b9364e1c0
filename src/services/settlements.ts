// Settlements: `sandbox settle` batches every captured payment (both families) that no settlement
// carries yet into one settlement per merchant and currency, with the fee model below, claws back
// refunds and lost chargebacks on payments an earlier settlement paid out, publishes
// settlement.created, and pays it out (settlement.paid) after the payout delay of sandbox time.
// Settlement events go to the merchant's registered webhook endpoints: a batch spans many
// payments, so no single payment's webhook_url is its home.
import { currencyExponent } from '../domain/currencies.js';
import { newId } from '../domain/ids.js';
import { ORDER_STATUS } from '../domain/order-status.js';
import type { PaymentState } from '../domain/payment-state.js';
import type { PaymentFamily } from '../domain/vocabularies.js';
import { SandboxError, present } from '../errors.js';
import type {
  OwedAdjustment,
  Settlement,
  SettlementAdjustment,
  SettlementFilter,
  SettlementItem,
  Unsettled,
} from '../store/settlements-repo.js';
import type { ServiceDeps } from './deps.js';
import type { EventPublisher } from './event-publisher.js';
import type { JobRunner } from './job-runner.js';
import { toSettlementView, type FeeTerms } from '../views/settlement.js';

/**
 * The fee model, in one place: 1.4% of each payment's captured amount (in basis points, rounded
 * half up to a whole minor unit) plus a fixed 0.25 per payment in two-decimal currencies
 * (25 minor units; 250 in three-decimal ones, 25 whole units in zero-decimal ones).
 */
export const FEE_MODEL = { percentBasisPoints: 140, fixedMinorUnits: 25 } as const;

/** Sandbox time between a settlement's creation and its payout (T+2), unless pay_after says otherwise. */
export const PAYOUT_DELAY_MS = 2 * 86_400_000;

/** /v1/ payment statuses a settlement takes: money was captured and is not in dispute. */
export const SETTLEABLE_STATES: readonly PaymentState[] = ['captured', 'partially_refunded', 'refunded'];

/** S2S order_status codes a settlement takes: Test Approved, Partially Refunded, Refunded. */
export const SETTLEABLE_CODES: readonly number[] = [
  ORDER_STATUS.approved.code,
  ORDER_STATUS.partiallyRefunded.code,
  ORDER_STATUS.refunded.code,
];

/** The fee on one payment of `gross` minor units, integer arithmetic only. */
export function settlementFee(gross: number, currency: string): number {
  // Round half up: (gross * bp + 5000) / 10000, floored; exact for every decimal(10,2) amount.
  const percent = Math.floor((gross * FEE_MODEL.percentBasisPoints + 5000) / 10_000);
  const fixed = FEE_MODEL.fixedMinorUnits * 10 ** Math.max(0, currencyExponent(currency) - 2);
  return percent + fixed;
}

/** What a settle run batches: narrow by merchant and currency; pay out after `payAfterMs` (0: at once). */
export interface SettleInput {
  merchantId?: string;
  currency?: string;
  payAfterMs?: number;
}

/** What one settlement batches: a merchant's unsettled payments and owed clawbacks in one currency. */
interface SettlementGroup {
  merchantId: string;
  currency: string;
  payments: Unsettled[];
  clawbacks: OwedAdjustment[];
}

/** The settlement use cases. */
export class Settlements {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly jobs: JobRunner,
    private readonly events: EventPublisher,
  ) {
    jobs.register('settlement.pay', (job) => this.payOut(job.subjectId));
  }

  /**
   * Batches every unsettled captured payment, and every clawback owed by settled ones, into
   * settlements (one per merchant and currency); returns them.
   */
  settle(input: SettleInput = {}): Settlement[] {
    const { store, clock } = this.deps;
    const payAfter = input.payAfterMs ?? PAYOUT_DELAY_MS;
    if (input.merchantId !== undefined && !store.credentials.merchant(input.merchantId)) {
      throw new SandboxError(
        'resource_missing',
        `no merchant ${input.merchantId}; use a merchant id of the fixtures, e.g. mer_sandbox, or leave merchant out to settle every merchant`,
        'merchant',
      );
    }
    return store.tx(() => {
      const groups = new Map<string, SettlementGroup>();
      const group = (merchantId: string, currency: string) => {
        const key = `${merchantId} ${currency}`;
        const found = groups.get(key) ?? { merchantId, currency, payments: [], clawbacks: [] };
        groups.set(key, found);
        return found;
      };
      const narrow = { merchantId: input.merchantId, currency: input.currency };
      for (const row of store.settlements.unsettled({ v1Statuses: SETTLEABLE_STATES, s2sCodes: SETTLEABLE_CODES, ...narrow }))
        group(row.merchantId, row.currency).payments.push(row);
      for (const owed of store.settlements.owedAdjustments(narrow)) group(owed.merchantId, owed.currency).clawbacks.push(owed);

      const now = clock.now();
      return [...groups.values()].map((g) => this.batch(g, now, payAfter));
    });
  }

  /** One settlement of a merchant's payments and clawbacks in one currency, paid out after payAfter ms. */
  private batch(group: SettlementGroup, now: number, payAfter: number): Settlement {
    const { store } = this.deps;
    const { merchantId, currency, payments, clawbacks } = group;
    const id = newId('st');
    const items: SettlementItem[] = payments.map((r) => ({
      settlementId: id,
      subjectType: r.subjectType,
      subjectId: r.subjectId,
      gross: r.gross,
      fee: settlementFee(r.gross, currency),
      refunded: r.refunded,
    }));
    const adjustments: SettlementAdjustment[] = clawbacks.map((o) => ({
      settlementId: id,
      subjectType: o.subjectType,
      subjectId: o.subjectId,
      kind: o.kind,
      chargebackId: o.chargebackId,
      amount: o.amount,
    }));
    const sum = <T>(rows: T[], pick: (row: T) => number) => rows.reduce((total, row) => total + pick(row), 0);
    const gross = sum(items, (i) => i.gross);
    const fees = sum(items, (i) => i.fee);
    const refunds = sum(items, (i) => i.refunded);
    const adjusted = sum(adjustments, (a) => a.amount);
    const settlement: Settlement = {
      id,
      merchantId,
      currency,
      gross,
      fees,
      refunds,
      adjustments: adjusted,
      net: gross - fees - refunds + adjusted,
      count: items.length,
      status: 'created',
      payAt: now + payAfter,
      paidAt: null,
      createdAt: now,
    };
    store.settlements.insert(settlement);
    for (const item of items) store.settlements.insertItem(item);
    for (const adjustment of adjustments) store.settlements.insertAdjustment(adjustment);
    this.publish(settlement, 'settlement.created');
    if (payAfter === 0) this.payOut(id);
    else this.jobs.schedule('settlement.pay', id, settlement.payAt);
    return present(store.settlements.get(id), `settlement ${id}`);
  }

  /** Pays a created settlement out now (settlement.paid); 409 when it is already paid. */
  payNow(id: string): Settlement {
    return this.deps.store.tx(() => {
      const s = this.get(id);
      if (s.status !== 'created') throw new SandboxError('invalid_state', `settlement ${id} is already ${s.status}`, 'id');
      this.jobs.cancel('settlement.pay', id);
      this.payOut(id);
      return this.get(id);
    });
  }

  /** A settlement by id; 404 otherwise. */
  get(id: string): Settlement {
    const s = this.deps.store.settlements.get(id);
    if (!s) throw new SandboxError('resource_missing', `no settlement ${id}; GET /_sandbox/settlements lists them`, 'id');
    return s;
  }

  /** The payments a settlement carries. */
  items(id: string): SettlementItem[] {
    return this.deps.store.settlements.items(id);
  }

  /** The clawbacks a settlement takes back. */
  adjustments(id: string): SettlementAdjustment[] {
    return this.deps.store.settlements.adjustments(id);
  }

  /** The fee terms of a settlement in `currency`, as its answers and events state them. */
  feeTerms(currency: string): FeeTerms {
    return { percentBasisPoints: FEE_MODEL.percentBasisPoints, fixedPerPayment: settlementFee(0, currency) };
  }

  /** The settlement that carries a payment (either family), if one does. */
  settlementOf(subjectType: PaymentFamily, subjectId: string): Settlement | undefined {
    const item = this.deps.store.settlements.itemFor(subjectType, subjectId);
    return item ? this.deps.store.settlements.get(item.settlementId) : undefined;
  }

  /** Newest first. */
  list(filter: SettlementFilter): Settlement[] {
    return this.deps.store.settlements.list(filter);
  }

  /** The settlement.pay job (and pay_after 0): created -> paid, with settlement.paid. */
  private payOut(id: string): void {
    const { store, clock } = this.deps;
    if (!store.settlements.markPaid(id, clock.now())) return;
    this.publish(present(store.settlements.get(id), `settlement ${id}`), 'settlement.paid');
  }

  private publish(s: Settlement, type: 'settlement.created' | 'settlement.paid'): void {
    // The event carries the settlement as the control API shows it.
    const view = toSettlementView(s, this.items(s.id), this.adjustments(s.id), this.feeTerms(s.currency));
    const { object: _object, id, ...data } = view;
    this.events.publish({ merchantId: s.merchantId, resourceId: s.id, event: { type, data: { settlement_id: id, ...data } } });
  }
}
