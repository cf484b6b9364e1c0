// The dashboard's read side: one page of any list (S2S transactions, /v1/ payments, checkout
// sessions, chargebacks, settlements, events, deliveries) across every merchant, newest first,
// filtered by status, event type or an exact id/reference search, paginated by keyset on
// (created_at, id) so a page costs the same at row 50 and at row 100 000 (indexes in migrations
// 008, 009 and 012). Read-only; never writes.
import { ORDER_STATUS } from '../../domain/order-status.js';
import { PAYMENT_STATES } from '../../domain/payment-state.js';
import {
  CHARGEBACK_STATUSES,
  CHECKOUT_SESSION_STATUSES,
  DELIVERY_STATUSES,
  SETTLEMENT_STATUSES,
  type DashboardTab,
} from '../../domain/vocabularies.js';
import { SandboxError } from '../../errors.js';
import type { DeliveryAttempt } from '../../store/deliveries-repo.js';
import type { DashboardPage, DeliveryRow, TabRows } from './rows.js';
import type { ServiceDeps } from '../deps.js';

/** The deliveries that need attention: failed for good, or waiting for a retry after a failed attempt. */
export const FAILING = 'failing';

/** The status filter values of each tab (transactions: order_status codes; deliveries: FAILING too). */
export const TAB_STATUSES: Record<DashboardTab, readonly string[]> = {
  transactions: Object.values(ORDER_STATUS).map((s) => String(s.code)),
  payments: PAYMENT_STATES,
  sessions: CHECKOUT_SESSION_STATUSES,
  chargebacks: CHARGEBACK_STATUSES,
  settlements: SETTLEMENT_STATUSES,
  events: [],
  deliveries: [FAILING, ...DELIVERY_STATUSES],
};

/** A pending delivery has been tried and refused once it has attempts: the last one did not get a 2xx. */
const FAILING_DELIVERY = "(d.status = 'failed' OR (d.status = 'pending' AND d.attempts > 0))";

/** The list the dashboard opens on when no tab is asked for, and why when it is not the usual one. */
export interface Landing {
  tab: DashboardTab;
  status?: string;
  /** Set when the dashboard opens on what needs attention. */
  attention?: 'failing-deliveries';
}

/** Filters of one list page; `startingAfter` is the id of the last row of the previous page. */
export interface DashboardFilter {
  /** Only this merchant's rows. */
  merchant?: string;
  status?: string;
  type?: string;
  q?: string;
  startingAfter?: string;
  limit: number;
}

/** How one tab's list is read: the SQL pieces its filters and keyset plug into. */
interface ListSpec {
  select: string;
  from: string;
  id: string;
  created: string;
  /** The column of the merchant a row belongs to. */
  merchant: string;
  status?: string;
  type?: string;
  /** Conditions on @q, any of which makes a row match an exact search (id, reference, ...). */
  search: string[];
}

// An open challenge that has not run out of time: Approve / Decline can still complete it.
const openChallenge = (subject: string, id: string) =>
  `EXISTS (SELECT 1 FROM challenges c WHERE c.subject_type = '${subject}' AND c.subject_id = ${id} AND c.state = 'open' AND c.expires_at > @now)`;
const authOpen = (subject: string, id: string) => `${openChallenge(subject, id)} AS authOpen`;

const SPECS: Record<DashboardTab, ListSpec> = {
  transactions: {
    select: `t.trans_id AS id, t.merchant_id AS merchantId, t.reference, t.amount, t.currency, t.brand, t.ccno, t.order_status AS orderStatus,
      t.response, t.created_at AS createdAt, ${authOpen('transaction', 't.trans_id')}`,
    from: 'transactions t',
    id: 't.trans_id',
    created: 't.created_at',
    merchant: 't.merchant_id',
    status: 't.order_status',
    search: ['t.trans_id = @q', 't.reference = @q'],
  },
  payments: {
    select: `p.id, p.merchant_id AS merchantId, p.reference, p.amount, p.currency, p.method, p.card_brand AS instrumentLabel,
      p.card_last4 AS cardLast4, p.status, p.decline_code AS declineCode, p.created_at AS createdAt,
      (${openChallenge('payment', 'p.id')} OR (p.method = 'ideal' AND p.status = 'requires_action')) AS authOpen`,
    from: 'payments p',
    id: 'p.id',
    created: 'p.created_at',
    merchant: 'p.merchant_id',
    status: 'p.status',
    search: ['p.id = @q', 'p.reference = @q'],
  },
  sessions: {
    select: `s.id, s.merchant_id AS merchantId, s.reference, s.amount, s.currency, s.status, s.payment_id AS paymentId,
      s.last_payment_id AS lastPaymentId, s.expires_at AS expiresAt, s.created_at AS createdAt`,
    from: 'checkout_sessions s',
    id: 's.id',
    created: 's.created_at',
    merchant: 's.merchant_id',
    status: 's.status',
    search: ['s.id = @q', 's.reference = @q', 's.payment_id = @q'],
  },
  chargebacks: {
    select: `c.id, c.merchant_id AS merchantId, c.subject_type AS family, c.subject_id AS subjectId, c.amount, c.currency, c.reason, c.status,
      c.created_at AS createdAt`,
    from: 'chargebacks c',
    id: 'c.id',
    created: 'c.created_at',
    merchant: 'c.merchant_id',
    status: 'c.status',
    search: ['c.id = @q', 'c.subject_id = @q'],
  },
  settlements: {
    select: `st.id, st.merchant_id AS merchantId, st.currency, st.count, st.gross, st.fees, st.refunds, st.adjustments, st.net, st.status,
      st.pay_at AS payAt, st.paid_at AS paidAt, st.created_at AS createdAt,
      (SELECT COUNT(*) FROM settlement_adjustments a WHERE a.settlement_id = st.id) AS clawbacks`,
    from: 'settlements st',
    id: 'st.id',
    created: 'st.created_at',
    merchant: 'st.merchant_id',
    status: 'st.status',
    // A payment's id finds the settlement that carries it, and those that claw something back from it.
    search: [
      'st.id = @q',
      'EXISTS (SELECT 1 FROM settlement_items i WHERE i.settlement_id = st.id AND i.subject_id = @q)',
      'EXISTS (SELECT 1 FROM settlement_adjustments a WHERE a.settlement_id = st.id AND a.subject_id = @q)',
    ],
  },
  events: {
    select: 'e.id, e.merchant_id AS merchantId, e.type, e.resource_id AS resourceId, e.created_at AS createdAt',
    from: 'events e',
    id: 'e.id',
    created: 'e.created_at',
    merchant: 'e.merchant_id',
    type: 'e.type',
    search: ['e.id = @q', 'e.resource_id = @q'],
  },
  deliveries: {
    select: `d.id, d.merchant_id AS merchantId, d.event_id AS eventId, e.type AS eventType, d.url, d.status, d.manual, d.attempts,
      d.last_status AS lastStatus, d.last_error AS lastError, d.created_at AS createdAt`,
    // CROSS JOIN keeps deliveries the outer loop: a type filter then walks deliveries newest first
    // and stops after one page, instead of sorting every delivery of a common type.
    from: 'deliveries d CROSS JOIN events e ON e.id = d.event_id',
    id: 'd.id',
    created: 'd.created_at',
    merchant: 'd.merchant_id',
    status: 'd.status',
    type: 'e.type',
    search: ['d.id = @q', 'd.event_id = @q'],
  },
};

/** Reads the dashboard's lists and the delivery detail. */
export class DashboardQueries {
  /** One prepared statement per distinct filter shape, built on first use. */
  private readonly statements = new Map<string, ReturnType<ServiceDeps['store']['db']['prepare']>>();

  constructor(private readonly deps: ServiceDeps) {}

  /** One page of a tab, newest first. */
  list<T extends DashboardTab>(tab: T, filter: DashboardFilter): DashboardPage<TabRows[T]> {
    const spec = SPECS[tab];
    const where: string[] = [];
    const args: Record<string, unknown> = { now: this.deps.clock.now(), limit: filter.limit + 1 };
    if (filter.merchant !== undefined) {
      where.push(`${spec.merchant} = @merchant`);
      args.merchant = filter.merchant;
    }
    if (tab === 'deliveries' && filter.status === FAILING) where.push(FAILING_DELIVERY);
    else if (filter.status !== undefined && spec.status) {
      where.push(`${spec.status} = @status`);
      args.status = tab === 'transactions' ? Number(filter.status) : filter.status;
    }
    if (filter.type !== undefined && spec.type) {
      where.push(`${spec.type} = @type`);
      args.type = filter.type;
    }
    if (filter.q !== undefined) {
      where.push(`(${spec.search.join(' OR ')})`);
      args.q = filter.q;
    }
    if (filter.startingAfter !== undefined) {
      const createdAt = this.statement(`SELECT ${spec.created} FROM ${spec.from} WHERE ${spec.id} = ?`).pluck().get(filter.startingAfter) as
        | number
        | undefined;
      if (createdAt === undefined) {
        throw new SandboxError(
          'parameter_invalid',
          `starting_after names no row of the ${tab} list ("${filter.startingAfter}"); use the "Older" link, or leave starting_after out for the newest rows`,
          'starting_after',
        );
      }
      where.push(`(${spec.created} < @afterAt OR (${spec.created} = @afterAt AND ${spec.id} < @afterId))`);
      Object.assign(args, { afterAt: createdAt, afterId: filter.startingAfter });
    }
    const sql = `SELECT ${spec.select} FROM ${spec.from} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY ${spec.created} DESC, ${spec.id} DESC LIMIT @limit`;
    const rows = this.statement(sql).all(args) as Array<TabRows[T]>;
    const more = rows.length > filter.limit;
    const shown = more ? rows.slice(0, filter.limit) : rows;
    return { rows: shown, next: more ? (shown[shown.length - 1] as { id: string }).id : null };
  }

  /**
   * The list the dashboard opens on: the failing deliveries when there are any (what needs
   * attention first), else the payments of the family used last (S2S transactions or /v1/ payments,
   * by the newest row), S2S transactions when there is none.
   */
  landing(merchant?: string): Landing {
    const mine = (column: string) => (merchant === undefined ? '' : ` AND ${column} = @merchant`);
    const args = merchant === undefined ? {} : { merchant };
    const failing = this.statement(`SELECT 1 FROM deliveries d WHERE ${FAILING_DELIVERY}${mine('d.merchant_id')} LIMIT 1`).get(args);
    if (failing) return { tab: 'deliveries', status: FAILING, attention: 'failing-deliveries' };
    const newest = (table: string) =>
      (this.statement(`SELECT MAX(created_at) FROM ${table} WHERE 1${mine('merchant_id')}`)
        .pluck()
        .get(args) as number | null) ?? -1;
    return { tab: newest('payments') > newest('transactions') ? 'payments' : 'transactions' };
  }

  /** Every attempt of a delivery, with the request as sent and the response as received. */
  attempts(deliveryId: string): DeliveryAttempt[] {
    return this.deps.store.deliveries.attempts(deliveryId);
  }

  /** The other deliveries of the same event (replays, other endpoints), newest first. */
  siblings(eventId: string, exceptId: string): DeliveryRow[] {
    return this.list('deliveries', { q: eventId, limit: 100 }).rows.filter((d) => d.id !== exceptId);
  }

  private statement(sql: string) {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.deps.store.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
