// The dashboard at /_sandbox/ (the address the start banner prints): lists of S2S transactions,
// /v1/ payments, checkout sessions, events and deliveries, a delivery's attempts, Replay, and
// Approve / Decline of pending authentications. Behind the control guard like the rest of
// /_sandbox/ (middleware/control-guard.ts: loopback Hosts only, same-origin posts only), and its
// forms carry a CSRF token of this process: a web page open in the developer's browser can neither
// post to it nor read it.
import { Hono } from 'hono';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { safeEqual } from '../../signatures/signing.js';
import { newSecret } from '../../domain/ids.js';
import { SandboxError } from '../../errors.js';
import { DeliveryFragment, DeliveryPage } from '../../pages/dashboard/delivery.js';
import { FaultsFragment, FaultsPage } from '../../pages/dashboard/faults.js';
import { DASHBOARD_CSS, DASHBOARD_JS } from '../../pages/dashboard/assets.js';
import { ListFragment } from '../../pages/dashboard/tables.js';
import { DashboardPage, listHref } from '../../pages/dashboard/page.js';
import { OUTCOME_VERDICTS } from '../../services/authentication.js';
import type { Services } from '../../services/services.js';
import { dashboardAuthenticateForm, dashboardQuery, dashboardReplayForm } from '../../contracts/dashboard.js';
import type { AppDeps, AppEnv } from '../app-env.js';
import type { OpenApiRoute } from '../openapi/route.js';
import { pageHeaders as sharedPageHeaders } from '../page-headers.js';
import { readForm } from '../validation.js';
import { listParts, readView } from './dashboard-lists.js';
import { validate } from '../../contracts/validate.js';
import { toDeliveryDetailView } from '../../views/delivery.js';
import { faultListAnswer } from './faults.js';
import { paymentPageRoutes } from './dashboard-payment.js';

const page = (
  method: 'get' | 'post',
  path: string,
  summary: string,
  response: string,
  extra: Partial<OpenApiRoute> = {},
): OpenApiRoute => ({
  method,
  path,
  summary,
  response,
  tag: 'Dashboard',
  auth: 'control',
  responseType: 'text/html',
  ...extra,
});

/** The dashboard's routes in /openapi.json: HTML pages and form posts for a browser, listed so every route is on record. */
export const dashboardOpenApi: OpenApiRoute[] = [
  // Documented without the trailing slash (linters refuse one); /_sandbox answers 308 to /_sandbox/, which serves the page.
  page(
    'get',
    '/_sandbox',
    'The dashboard (served at /_sandbox/): one list (tab) with its filters, newest first, 50 rows a page',
    'the HTML page, at /_sandbox/',
    { query: dashboardQuery, redirects: { 308: '/_sandbox/ with the same query' } },
  ),
  page('get', '/_sandbox/dashboard/fragment', 'The list of the dashboard alone, as the live script swaps it in', 'an HTML fragment', {
    query: dashboardQuery,
  }),
  page(
    'get',
    '/_sandbox/dashboard/deliveries/:id',
    'A delivery with every attempt (request headers and body, response excerpt) and its Replay button',
    'an HTML page',
    { errors: ['resource_missing'] },
  ),
  page(
    'get',
    '/_sandbox/dashboard/deliveries/:id/fragment',
    "The live part of a delivery's page (status, attempts, other deliveries of the event)",
    'an HTML fragment',
    { errors: ['resource_missing'] },
  ),
  page(
    'get',
    '/_sandbox/dashboard/payments/:id',
    "A payment's timeline (S2S transID or /v1/ id, or its session, refund or chargeback id) drawn as a sequence diagram: requests and answers, state changes, webhook attempts",
    'an HTML page',
    { htmlAnswers: { 404: 'the id names no payment: an HTML page saying what the page takes' } },
  ),
  page(
    'get',
    '/_sandbox/dashboard/payments/:id/fragment',
    "The live part of a payment's page (its status and the sequence diagram)",
    'an HTML fragment',
    { errors: ['resource_missing'] },
  ),
  page(
    'post',
    '/_sandbox/dashboard/deliveries/:id/replay',
    "The Replay button's form: sends the event again as a new delivery",
    '303 back to the delivery, whose page lists the replay',
    { status: 303, body: dashboardReplayForm, bodyType: 'application/x-www-form-urlencoded', errors: ['resource_missing'] },
  ),
  page(
    'post',
    '/_sandbox/dashboard/authenticate',
    "The Approve / Decline buttons' form on a pending authentication",
    '303 back to the list',
    {
      status: 303,
      body: dashboardAuthenticateForm,
      bodyType: 'application/x-www-form-urlencoded',
      errors: ['resource_missing', 'invalid_state'],
    },
  ),
  page(
    'get',
    '/_sandbox/dashboard/faults',
    'The fault rules in force and the API faults injected lately (X-Sandbox-Fault and API fault rules)',
    'an HTML page',
  ),
  page('get', '/_sandbox/dashboard/faults/fragment', 'The live part of the Faults page', 'an HTML fragment'),
  page('get', '/_sandbox/assets/dashboard.js', "The dashboard's live-update script", 'JavaScript', { responseType: 'text/javascript' }),
  page('get', '/_sandbox/assets/dashboard.css', "The dashboard's stylesheet", 'CSS', { responseType: 'text/css' }),
];

/** The dashboard's routes; mounted at '/' because its home is "/_sandbox/" with the slash (a sub-app at /_sandbox cannot have one). */
export function dashboardRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  // One token per process: the forms carry it, and no other page can learn it (same-origin policy).
  const csrf = newSecret();
  const pageHeaders = sharedPageHeaders('control');
  const noStore = createMiddleware<AppEnv>(async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
  });
  for (const path of ['/_sandbox', '/_sandbox/', '/_sandbox/dashboard/*', '/_sandbox/assets/dashboard.*']) app.use(path, pageHeaders);
  app.use('/_sandbox/', noStore);
  app.use('/_sandbox/dashboard/*', noStore);
  // Registered in this order: the lists, a delivery's and the faults' pages, a payment's page, the forms, the assets.
  listRoutes(app, deps.services, csrf);
  detailRoutes(app, deps.services, csrf);
  paymentPageRoutes(app, deps.services);
  formRoutes(app, deps, csrf);
  app.get('/_sandbox/assets/dashboard.js', (c) =>
    c.body(DASHBOARD_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }),
  );
  app.get('/_sandbox/assets/dashboard.css', (c) =>
    c.body(DASHBOARD_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'no-cache' }),
  );
  return app;
}

/** The dashboard page with one list, and the list alone for the live script. */
function listRoutes(app: Hono<AppEnv>, services: Services, csrf: string) {
  const listPage = (c: Context) => {
    const view = readView(services, c);
    const { page, ctx } = listParts(services, csrf, view);
    const fragmentHref = listHref(view, '/_sandbox/dashboard/fragment');
    const merchants = services.credentials.merchants().map((m) => ({ id: m.id, name: m.name }));
    return c.html(
      DashboardPage({ view, merchants, now: services.clock.now(), fragmentHref, children: ListFragment({ tab: view.tab, page, ctx }) }),
    );
  };
  app.get('/_sandbox/', listPage);
  app.get('/_sandbox', (c) => c.redirect(`/_sandbox/${new URL(c.req.url).search}`, 308));

  app.get('/_sandbox/dashboard/fragment', (c) => {
    const view = readView(services, c);
    const { page, ctx } = listParts(services, csrf, view);
    return c.html(String(ListFragment({ tab: view.tab, page, ctx })));
  });
}

/** A delivery's page and the Faults page, each with its live fragment. */
function detailRoutes(app: Hono<AppEnv>, services: Services, csrf: string) {
  const queries = services.dashboard;
  const deliveryParts = (id: string) => {
    const detail = services.deliveries.get(id);
    // A 400, 401 or 403 is most often a signature check: say what the sandbox finds in what each attempt sent.
    const refusals = services.signatures.refusals(detail.attempts);
    const delivery = toDeliveryDetailView(detail.delivery, detail.request, detail.attempts, refusals);
    return { delivery, attempts: detail.attempts, refusals, siblings: queries.siblings(delivery.event_id, id) };
  };

  app.get('/_sandbox/dashboard/deliveries/:id', (c) =>
    c.html(DeliveryPage({ ...deliveryParts(c.req.param('id')), csrf, now: services.clock.now() })),
  );

  app.get('/_sandbox/dashboard/deliveries/:id/fragment', (c) => c.html(String(DeliveryFragment(deliveryParts(c.req.param('id'))))));

  const faultParts = () => {
    const { seed, data: rules } = faultListAnswer(services.faults);
    return { seed, rules, injected: services.faults.recentInjected() };
  };
  app.get('/_sandbox/dashboard/faults', (c) => c.html(FaultsPage({ ...faultParts(), now: services.clock.now() })));
  app.get('/_sandbox/dashboard/faults/fragment', (c) => c.html(String(FaultsFragment(faultParts()))));
}

/** The Replay and Approve / Decline forms' posts, each checked against the process's CSRF token. */
function formRoutes(app: Hono<AppEnv>, deps: AppDeps, csrf: string) {
  const { services } = deps;
  const checkCsrf = (sent: string) => {
    if (!safeEqual(sent, csrf)) {
      throw new SandboxError(
        'control_forbidden',
        'this form was not sent from a dashboard page of this sandbox process (csrf is missing or stale); reload the dashboard and try again',
        'csrf',
      );
    }
  };

  app.post('/_sandbox/dashboard/deliveries/:id/replay', async (c) => {
    const form = validate(dashboardReplayForm(), await readForm(c));
    checkCsrf(form.csrf);
    services.deliveries.replay(c.req.param('id'));
    deps.wake();
    // Back to the delivery's page, where the replay and its attempt appear under Replays.
    return c.redirect(`/_sandbox/dashboard/deliveries/${encodeURIComponent(c.req.param('id'))}#replays`, 303);
  });

  app.post('/_sandbox/dashboard/authenticate', async (c) => {
    const raw = await readForm(c);
    checkCsrf(raw.csrf ?? '');
    const form = validate(dashboardAuthenticateForm(), raw);
    const challenge = services.auth.forSubject(form.subject, form.id);
    const what = form.subject === 'transaction' ? 'transaction' : 'payment';
    if (challenge) services.auth.complete(challenge.token, OUTCOME_VERDICTS[form.outcome]);
    // An iDEAL payment waits at the bank page rather than behind a challenge: decide it as the bank would.
    else if (
      form.subject !== 'payment' ||
      !services.checkoutPayments.decideOpenIdeal(form.id, form.outcome === 'approve' ? 'paid' : 'failed')
    ) {
      throw new SandboxError('resource_missing', `no ${what} ${form.id} with an authentication; pick one from the list`, 'id');
    }
    deps.wake();
    return c.redirect(form.back ?? listHref({ tab: form.subject === 'transaction' ? 'transactions' : 'payments' }), 303);
  });
}
