// The dashboard's list tables (one per tab) and their pager: the part of the page the live
// script swaps in (GET /_sandbox/dashboard/fragment renders exactly this). Every value goes
// through hono/jsx, so references, URLs and error texts from requests are escaped.
import { formatDecimalMoney as money } from '../../domain/money.js';
import { AuthButtons, deliveriesOf, eventsOf, PaymentId, Status, Table, type TableContext, when } from './cells.js';
import { statusText } from '../../domain/order-status.js';
import type { DashboardTab } from '../../domain/vocabularies.js';
import type {
  ChargebackRow,
  DashboardPage,
  DeliveryRow,
  EventRow,
  PaymentRow,
  SessionRow,
  SettlementRow,
  TabRows,
  TransactionRow,
} from '../../services/dashboard/rows.js';

function TransactionRows(props: { rows: TransactionRow[]; ctx: TableContext }) {
  return props.rows.map((t) => (
    <tr data-id={t.id}>
      <td class="id">
        <PaymentId id={t.id} />
      </td>
      <td>{t.reference}</td>
      <td class="num">{money(t.amount, t.currency)}</td>
      <td>
        {t.brand}
        {t.ccno ? ` ${t.ccno}` : ''}
      </td>
      <td>
        <Status text={statusText(t.orderStatus)} /> <span class="hint">{t.response}</span>
      </td>
      <td>{when(t.createdAt)}</td>
      <td class="id">{t.merchantId}</td>
      <td>
        {t.authOpen ? <AuthButtons subject="transaction" id={t.id} ctx={props.ctx} /> : null} <a href={eventsOf(t.id)}>events</a>
      </td>
    </tr>
  ));
}

function PaymentRows(props: { rows: PaymentRow[]; ctx: TableContext }) {
  return props.rows.map((p) => (
    <tr data-id={p.id}>
      <td class="id">
        <PaymentId id={p.id} />
      </td>
      <td>{p.reference ?? ''}</td>
      <td class="num">{money(p.amount, p.currency)}</td>
      <td>
        {p.method} {p.instrumentLabel} {p.cardLast4 ? `•••• ${p.cardLast4}` : ''}
      </td>
      <td>
        <Status text={p.status} /> <span class="hint">{p.declineCode ?? ''}</span>
      </td>
      <td>{when(p.createdAt)}</td>
      <td class="id">{p.merchantId}</td>
      <td>
        {p.authOpen ? <AuthButtons subject="payment" id={p.id} ctx={props.ctx} /> : null} <a href={eventsOf(p.id)}>events</a>
      </td>
    </tr>
  ));
}

function SessionRows(props: { rows: SessionRow[] }) {
  return props.rows.map((s) => (
    <tr data-id={s.id}>
      <td class="id">{s.id}</td>
      <td>{s.reference ?? ''}</td>
      <td class="num">{money(s.amount, s.currency)}</td>
      <td>
        <Status text={s.status} />
      </td>
      <td class="id">
        {s.paymentId ? (
          <PaymentId id={s.paymentId} />
        ) : s.lastPaymentId ? (
          <>
            last try <PaymentId id={s.lastPaymentId} />
          </>
        ) : (
          ''
        )}
      </td>
      <td>{when(s.createdAt)}</td>
      <td>{when(s.expiresAt)}</td>
      <td class="id">{s.merchantId}</td>
      <td>
        <a href={eventsOf(s.id)}>events</a>
      </td>
    </tr>
  ));
}

function ChargebackRows(props: { rows: ChargebackRow[] }) {
  return props.rows.map((c) => (
    <tr data-id={c.id}>
      <td class="id">{c.id}</td>
      <td class="id">
        {c.family === 's2s' ? 'transID ' : ''}
        <PaymentId id={c.subjectId} />
      </td>
      <td class="num">{money(c.amount, c.currency)}</td>
      <td>{c.reason}</td>
      <td>
        <Status text={c.status} />
      </td>
      <td>{when(c.createdAt)}</td>
      <td class="id">{c.merchantId}</td>
      <td>
        <a href={eventsOf(c.subjectId)}>events</a>
      </td>
    </tr>
  ));
}

function SettlementRows(props: { rows: SettlementRow[] }) {
  return props.rows.map((s) => (
    <tr data-id={s.id}>
      <td class="id">{s.id}</td>
      <td class="num">
        {s.count}
        {s.clawbacks ? ` + ${s.clawbacks} clawback${s.clawbacks === 1 ? '' : 's'}` : ''}
      </td>
      <td class="num">{money(s.gross, s.currency)}</td>
      <td class="num">{money(s.fees, s.currency)}</td>
      <td class="num">{money(s.refunds, s.currency)}</td>
      <td class="num">{money(s.adjustments, s.currency)}</td>
      <td class="num">{money(s.net, s.currency)}</td>
      <td>
        <Status text={s.status} /> <span class="hint">{s.paidAt === null ? `pays out ${when(s.payAt)}` : `paid ${when(s.paidAt)}`}</span>
      </td>
      <td>{when(s.createdAt)}</td>
      <td class="id">{s.merchantId}</td>
      <td>
        <a href={eventsOf(s.id)}>events</a>
      </td>
    </tr>
  ));
}

function EventRows(props: { rows: EventRow[] }) {
  return props.rows.map((e) => (
    <tr data-id={e.id}>
      <td class="id">{e.id}</td>
      <td>{e.type}</td>
      <td class="id">
        <PaymentId id={e.resourceId} />
      </td>
      <td>{when(e.createdAt)}</td>
      <td class="id">{e.merchantId}</td>
      <td>
        <a href={deliveriesOf(e.id)}>deliveries</a>
      </td>
    </tr>
  ));
}

// Status comes right after the id: on a phone the long URL would push it out of view.
function DeliveryRows(props: { rows: DeliveryRow[] }) {
  return props.rows.map((d) => (
    <tr data-id={d.id}>
      <td class="id">
        <a href={`/_sandbox/dashboard/deliveries/${encodeURIComponent(d.id)}`}>{d.id}</a>
      </td>
      <td>
        <Status text={d.status} />
      </td>
      <td>
        {d.eventType}
        {d.manual ? ' (replay)' : ''}
      </td>
      <td class="id url">{d.url}</td>
      <td class="num">{d.attempts}</td>
      <td>
        {d.lastStatus ?? ''}
        {d.lastError ? ` ${d.lastError}` : ''}
      </td>
      <td>{when(d.createdAt)}</td>
    </tr>
  ));
}

const HEADS: Record<DashboardTab, string[]> = {
  transactions: ['transID', 'Reference', 'Amount', 'Card', 'Status', 'Created (sandbox time)', 'Merchant', ''],
  payments: ['Payment', 'Reference', 'Amount', 'Method', 'Status', 'Created (sandbox time)', 'Merchant', ''],
  sessions: ['Session', 'Reference', 'Amount', 'Status', 'Payment', 'Created (sandbox time)', 'Expires', 'Merchant', ''],
  chargebacks: ['Chargeback', 'Payment', 'Amount', 'Reason', 'Status', 'Created (sandbox time)', 'Merchant', ''],
  settlements: [
    'Settlement',
    'Payments',
    'Gross',
    'Fees',
    'Refunds',
    'Clawbacks',
    'Net',
    'Status',
    'Created (sandbox time)',
    'Merchant',
    '',
  ],
  events: ['Event', 'Type', 'About', 'Created (sandbox time)', 'Merchant', ''],
  deliveries: ['Delivery', 'Status', 'Event', 'URL', 'Attempts', 'Last answer', 'Created (sandbox time)'],
};

/** One tab's table and pager: the live fragment. */
export function ListFragment<T extends DashboardTab>(props: { tab: T; page: DashboardPage<TabRows[T]>; ctx: TableContext }) {
  const { tab, page, ctx } = props;
  const rows = page.rows as unknown[];
  const body =
    tab === 'transactions' ? (
      <TransactionRows rows={rows as TransactionRow[]} ctx={ctx} />
    ) : tab === 'payments' ? (
      <PaymentRows rows={rows as PaymentRow[]} ctx={ctx} />
    ) : tab === 'sessions' ? (
      <SessionRows rows={rows as SessionRow[]} />
    ) : tab === 'chargebacks' ? (
      <ChargebackRows rows={rows as ChargebackRow[]} />
    ) : tab === 'settlements' ? (
      <SettlementRows rows={rows as SettlementRow[]} />
    ) : tab === 'events' ? (
      <EventRows rows={rows as EventRow[]} />
    ) : (
      <DeliveryRows rows={rows as DeliveryRow[]} />
    );
  return (
    <>
      <Table tab={tab} heads={HEADS[tab]} count={rows.length}>
        {body}
      </Table>
      <nav class="pager" aria-label="Pages">
        {ctx.newestHref ? <a href={ctx.newestHref}>« Newest</a> : null}
        {ctx.olderHref ? (
          <a href={ctx.olderHref} rel="next">
            Older »
          </a>
        ) : null}
      </nav>
    </>
  );
}
