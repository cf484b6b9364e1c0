// The control API (/_sandbox/...): used by the CLI, the dashboard and tests. Who may call it
// (loopback or the --control-token, loopback Hosts, same-origin JSON writes) is decided once for
// all of /_sandbox by middleware/control-guard.ts.
import { Hono } from 'hono';
import { setCookie } from 'hono/cookie';
import { SandboxError, present } from '../../errors.js';
import { ControlLoginPage } from '../../pages/control-login.js';
import { safeEqual } from '../../signatures/signing.js';
import { parseDuration } from '../../domain/duration.js';
import { OUTCOME_VERDICTS } from '../../services/authentication.js';
import { VERSION } from '../../version.js';
import type { AppDeps, AppEnv } from '../app-env.js';
import { CONTROL_COOKIE } from '../middleware/control-guard.js';
import { validJson } from '../validation.js';
import { authenticateSchema } from '../../contracts/authentication.js';
import { advanceSchema } from '../../contracts/clock.js';
import { clockAdvanceView, clockView, healthView, toClockAdvanceView, toClockView, toHealthView } from '../../views/clock.js';
import type { Services } from '../../services/services.js';
import type { AdvanceResult } from '../../services/clock-advances.js';
import { toPaymentView } from '../../views/payment.js';
import { controlTransactionView, toControlTransactionView, toS2SStatusView } from '../../views/s2s.js';
import { iso } from '../../views/time.js';
import type { OpenApiRoute } from '../openapi/route.js';
import { authenticateResultView } from '../../views/authentication.js';
import { loginForm } from '../../contracts/control-login.js';
import { pageRoute } from '../openapi/pages.js';

/** Health, the sign-in form, transactions and their authentication, and the clock under /_sandbox; the other control modules mount their own. */
export function controlRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { services } = deps;

  // Browsers cannot send a bearer header: the token is traded once for a cookie scoped to /_sandbox.
  app.get('/login', (c) => c.html(ControlLoginPage({})));
  app.post('/login', async (c) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const sent = typeof form.token === 'string' ? form.token : '';
    if (deps.config.controlToken === undefined) return c.redirect('/_sandbox/', 303);
    if (!safeEqual(sent, deps.config.controlToken)) return c.html(ControlLoginPage({ failed: true }), 401);
    setCookie(c, CONTROL_COOKIE, sent, { httpOnly: true, sameSite: 'Strict', path: '/_sandbox', secure: c.req.url.startsWith('https:') });
    return c.redirect('/_sandbox/', 303);
  });

  app.get('/health', (c) => c.json(toHealthView(VERSION, services.clock.now())));

  app.get('/transactions/:transID', (c) => {
    const t = services.s2s.byTransId(c.req.param('transID'));
    if (!t) throw new SandboxError('resource_missing', `no transaction ${c.req.param('transID')}`, 'transID');
    const challenge = services.auth.forSubject('transaction', t.transId);
    return c.json(
      toControlTransactionView(
        t,
        challenge
          ? {
              state: challenge.state,
              kind: challenge.kind,
              authurl: services.auth.url(challenge.token),
              expires_at: iso(challenge.expiresAt),
            }
          : null,
      ),
    );
  });

  // Either id: an S2S transID, or a /v1/ payment's pay_... id (whose challenge has no other way
  // to be completed without a browser).
  app.post('/transactions/:transID/authenticate', async (c) => {
    const { outcome } = await validJson(c, authenticateSchema);
    const id = c.req.param('transID');
    const { subjectType, challenge } = services.auth.completeFor(id, OUTCOME_VERDICTS[outcome], 'transID');
    const payment = subjectType === 'transaction' ? undefined : present(services.payments.byId(id), `payment ${id}`);
    const after = payment
      ? toPaymentView(payment, services.payments.nextActionUrl(payment))
      : toS2SStatusView(present(services.s2s.byTransId(id), `transaction ${id}`));
    deps.wake();
    return c.json({ ...after, authentication: challenge.state, redirect_url: services.auth.returnUrl(challenge) });
  });

  app.get('/clock', (c) => c.json(toClockView(services.clock.now(), services.clock.offset())));

  app.post('/clock/advance', async (c) => {
    const { duration, wait } = await validJson(c, advanceSchema);
    const result = await services.clockAdvances.advance(
      present(parseDuration(duration), 'duration (the request schema checked it)'),
      wait ? present(parseDuration(wait), 'wait (the request schema checked it)') : 0,
      () => deps.wakeDeliveries(),
    );
    return c.json(advanceView(services, result));
  });

  return app;
}

/** The advance answer: the clock and what the jump caused. */
export function advanceView(services: Services, result: AdvanceResult) {
  return toClockAdvanceView({ ...result, offsetMs: services.clock.offset(), urlOf: (id) => services.clockAdvances.urlOf(id) });
}

/** The JSON routes of this module, for /openapi.json (the sign-in form is in loginOpenApi). */
export const controlOpenApi: OpenApiRoute[] = [
  {
    method: 'get',
    path: '/_sandbox/health',
    tag: 'Sandbox control',
    auth: 'control',
    summary: 'Liveness, version and the sandbox clock',
    response: '{status: "ok", version, time}',
    responseSchema: healthView,
  },
  {
    method: 'get',
    path: '/_sandbox/transactions/:transID',
    tag: 'Sandbox control',
    auth: 'control',
    summary: 'Everything about one S2S transaction, any merchant',
    response: 'the status fields plus terNO, merchant_id, URLs, refunded_amt and the authentication state',
    responseSchema: controlTransactionView,
  },
  {
    method: 'post',
    path: '/_sandbox/transactions/:transID/authenticate',
    tag: 'Sandbox control',
    auth: 'control',
    summary: 'Complete the customer authentication of an S2S transID or a /v1/ payment id (pay_...) without a browser',
    body: authenticateSchema,
    response: 'the transaction status (or the /v1/ payment) after the outcome, authentication and redirect_url',
    responseSchema: authenticateResultView,
    errors: ['resource_missing', 'invalid_state'],
  },
  {
    method: 'post',
    path: '/_sandbox/clock/advance',
    tag: 'Sandbox control',
    auth: 'control',
    summary:
      "Move the sandbox clock forward; due expiries, jobs and retries run now. Answers what the jump caused (jobs, scripted outcomes taken, events, each delivery's first attempt, waiting up to wait)",
    body: advanceSchema,
    response: '{now, offset_ms, offset, jobs_run, from, report}',
    responseSchema: clockAdvanceView,
  },
  {
    method: 'get',
    path: '/_sandbox/clock',
    tag: 'Sandbox control',
    auth: 'control',
    summary: 'The sandbox time and how far it is ahead of the wall clock (kept in the database across restarts)',
    response: '{now, offset_ms, offset}',
    responseSchema: clockView,
  },
];

/** The sign-in form of this module, for /openapi.json (listed with the pages). */
export const loginOpenApi: OpenApiRoute[] = [
  pageRoute('get', '/_sandbox/login', 'Dashboard sign-in form (only needed with --control-token)', 'an HTML form', {
    tag: 'Sandbox control',
  }),
  pageRoute(
    'post',
    '/_sandbox/login',
    'Trade the control token (form field token) for an HttpOnly cookie scoped to /_sandbox',
    'a redirect to the dashboard, with the cookie set',
    {
      tag: 'Sandbox control',
      body: loginForm,
      bodyType: 'application/x-www-form-urlencoded',
      status: 303,
      htmlAnswers: { 401: 'the token is wrong: the form again' },
    },
  ),
];
