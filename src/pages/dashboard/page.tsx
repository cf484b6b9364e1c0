// The dashboard page at /_sandbox/: a header, the tabs, the filter form (plain GET, so a filtered
// view is a URL to share or bookmark) and the live region the script refreshes. No inline script
// or style: the dashboard's CSP allows only the sandbox's own /_sandbox/assets/ files.
import type { Child } from 'hono/jsx';
import { ORDER_STATUS } from '../../domain/order-status.js';
import { EVENT_TYPE_NAMES } from '../../domain/event-types.js';
import { FAILING, TAB_STATUSES } from '../../services/dashboard/queries.js';
import { DASHBOARD_TABS, type DashboardTab } from '../../domain/vocabularies.js';
import { when } from './cells.js';
import { DOCTYPE, DocumentHead } from '../layout.js';
import { present } from '../../errors.js';

/** The filters of the list being shown, as the query string carries them. */
export interface ListView {
  tab: DashboardTab;
  /** Only this merchant's rows. */
  merchant?: string;
  status?: string;
  type?: string;
  q?: string;
  /** The id of the last row of the previous page (the query's starting_after). */
  startingAfter?: string;
  /** Set when the bare dashboard opened on what needs attention (services/dashboard/queries.ts landing()). */
  attention?: 'failing-deliveries';
}

const TAB_LABELS: Record<DashboardTab, string> = {
  transactions: 'S2S transactions',
  payments: '/v1/ payments',
  sessions: 'Checkout sessions',
  chargebacks: 'Chargebacks',
  settlements: 'Settlements',
  events: 'Events',
  deliveries: 'Webhook deliveries',
};

const SEARCH_HINTS: Record<DashboardTab, string> = {
  transactions: 'transID or reference',
  payments: 'pay_… id or reference',
  sessions: 'cs_… id, reference or payment id',
  chargebacks: 'dp_… id, or the transID / payment id',
  settlements: 'st_… id, or a transID / payment id in it',
  events: 'evt_… id, or the id it is about',
  deliveries: 'delivery id or evt_… id',
};

/** The dashboard URL of a list view (the query string holds only the filters that are set). */
export function listHref(view: ListView, base = '/_sandbox/'): string {
  const params = new URLSearchParams();
  const query = {
    tab: view.tab,
    merchant: view.merchant,
    status: view.status,
    type: view.type,
    q: view.q,
    starting_after: view.startingAfter,
  };
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  return `${base}?${params.toString()}`;
}

const statusLabel = (tab: DashboardTab, value: string) => {
  if (tab === 'deliveries' && value === FAILING) return 'failing (failed, or retrying after a refusal)';
  if (tab !== 'transactions') return value;
  const status = present(
    Object.values(ORDER_STATUS).find((s) => String(s.code) === value),
    `order status ${value}`,
  );
  return `${value} ${status.text}`;
};

/** The document shell of every dashboard page. */
export function DashboardShell(props: { title: string; now: number; children: Child }) {
  return (
    <>
      {DOCTYPE}
      <html lang="en">
        <DocumentHead title={props.title} stylesheet="/_sandbox/assets/dashboard.css" script="/_sandbox/assets/dashboard.js" />
        <body>
          <header>
            <h1>
              <a href="/_sandbox/">paysandbox</a>
            </h1>
            <span class="meta">Sandbox time {when(props.now)} UTC · every merchant · test mode</span>
            <span class="live" id="live-state" data-state="off" role="status">
              Live updates need JavaScript
            </span>
          </header>
          <main>{props.children}</main>
        </body>
      </html>
    </>
  );
}

/** The tabs, the filter form and the live list region. */
export function DashboardPage(props: {
  view: ListView;
  merchants: Array<{ id: string; name: string }>;
  now: number;
  fragmentHref: string;
  children: Child;
}) {
  const { view } = props;
  return (
    <DashboardShell title={`${TAB_LABELS[view.tab]} · paysandbox`} now={props.now}>
      <nav class="tabs" aria-label="Lists">
        {DASHBOARD_TABS.map((tab) => (
          <a href={listHref({ tab, merchant: view.merchant })} aria-current={tab === view.tab ? 'page' : undefined}>
            {TAB_LABELS[tab]}
          </a>
        ))}
        <a href="/_sandbox/dashboard/faults">Faults</a>
      </nav>
      <Filters view={view} merchants={props.merchants} />
      {view.attention === 'failing-deliveries' ? (
        <p class="attention" id="landing">
          Webhook deliveries are failing (failed, or retrying after your handler refused them or did not answer): the dashboard opens on
          them until none is. <a href={listHref({ tab: 'deliveries', merchant: view.merchant })}>All deliveries</a>
        </p>
      ) : null}
      <section id="list" data-live-src={props.fragmentHref} aria-live="polite">
        {props.children}
      </section>
    </DashboardShell>
  );
}

/** The filter form of a tab: merchant, status (where the tab has them), event type, search. */
function Filters(props: { view: ListView; merchants: Array<{ id: string; name: string }> }) {
  const { view } = props;
  const statuses = TAB_STATUSES[view.tab];
  const typed = view.tab === 'events' || view.tab === 'deliveries';
  return (
    <form class="filters" method="get" action="/_sandbox/">
      <input type="hidden" name="tab" value={view.tab} />
      <label>
        Merchant
        <select name="merchant">
          <option value="">every merchant</option>
          {props.merchants.map((m) => (
            <option value={m.id} selected={m.id === view.merchant}>{`${m.name} (${m.id})`}</option>
          ))}
        </select>
      </label>
      {statuses.length > 0 ? (
        <label>
          Status
          <select name="status">
            <option value="">any</option>
            {statuses.map((s) => (
              <option value={s} selected={s === view.status}>
                {statusLabel(view.tab, s)}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {typed ? (
        <label>
          Event type
          <select name="type">
            <option value="">any</option>
            {EVENT_TYPE_NAMES.map((t) => (
              <option value={t} selected={t === view.type}>
                {t}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <label>
        Search
        <input type="search" name="q" value={view.q ?? ''} placeholder={SEARCH_HINTS[view.tab]} size={32} />
      </label>
      <button class="primary" type="submit">
        Filter
      </button>
      <a href={listHref({ tab: view.tab })}>Clear</a>
    </form>
  );
}
