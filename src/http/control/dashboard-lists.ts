// The dashboard's lists (http/control/dashboard.ts): the list view a query asks for, checked against the
// tab's filters, and the page of rows with the links around it.
import type { Context } from 'hono';
import { SandboxError } from '../../errors.js';
import type { TableContext } from '../../pages/dashboard/cells.js';
import { listHref, type ListView } from '../../pages/dashboard/page.js';
import { TAB_STATUSES } from '../../services/dashboard/queries.js';
import type { Services } from '../../services/services.js';
import { dashboardQuery } from '../../contracts/dashboard.js';
import { validateQuery } from '../validation.js';

/** Rows per list page. */
export const DASHBOARD_PAGE_SIZE = 50;

/** Reads and checks a list view from the query; a status or type the tab does not have is a 400. */
export function readView(services: Services, c: Context): ListView {
  const query = validateQuery(c, dashboardQuery);
  // The bare dashboard (a merchant filter at most) opens on what needs attention; a query with
  // filters but no tab keeps meaning the S2S transactions, as links made before said.
  const bare = Object.entries(query).every(([key, value]) => value === undefined || key === 'merchant');
  if (bare) {
    if (query.merchant !== undefined) checkMerchant(services, query.merchant);
    const landing = services.dashboard.landing(query.merchant);
    return { tab: landing.tab, status: landing.status, merchant: query.merchant, attention: landing.attention };
  }
  const tab = query.tab ?? 'transactions';
  if (query.status !== undefined && !TAB_STATUSES[tab].includes(query.status)) {
    const allowed = TAB_STATUSES[tab];
    throw new SandboxError(
      'parameter_invalid',
      allowed.length
        ? `status must be one of ${allowed.join(', ')} for the ${tab} list, got "${query.status}"`
        : `the ${tab} list has no status filter; remove status (filter by type instead)`,
      'status',
    );
  }
  if (query.type !== undefined && tab !== 'events' && tab !== 'deliveries') {
    throw new SandboxError(
      'parameter_invalid',
      `the ${tab} list has no event type filter; remove type (it applies to events and deliveries)`,
      'type',
    );
  }
  if (query.merchant !== undefined) checkMerchant(services, query.merchant);
  return { tab, merchant: query.merchant, status: query.status, type: query.type, q: query.q, startingAfter: query.starting_after };
}

function checkMerchant(services: Services, merchant: string): void {
  if (!services.credentials.merchant(merchant)) {
    throw new SandboxError(
      'parameter_invalid',
      `merchant names no merchant ("${merchant}"); pick one in the Merchant filter, or leave merchant out for every merchant`,
      'merchant',
    );
  }
}

/** One page of the view's rows, and the links and CSRF token its table needs. */
export function listParts(services: Services, csrf: string, view: ListView) {
  const page = services.dashboard.list(view.tab, {
    merchant: view.merchant,
    status: view.status,
    type: view.type,
    q: view.q,
    startingAfter: view.startingAfter,
    limit: DASHBOARD_PAGE_SIZE,
  });
  const ctx: TableContext = {
    csrf,
    here: listHref(view),
    olderHref: page.next ? listHref({ ...view, startingAfter: page.next }) : null,
    newestHref: view.startingAfter ? listHref({ ...view, startingAfter: undefined }) : null,
  };
  return { page, ctx };
}
