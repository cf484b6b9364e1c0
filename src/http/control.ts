// The control API (/_sandbox/...): used by the CLI, the dashboard and tests. Who may call it
// (loopback or the --control-token, loopback Hosts, same-origin JSON writes) is decided once for
// all of /_sandbox by middleware/control-guard.ts.
import { Hono } from 'hono';
import * as z from 'zod';
import { setCookie } from 'hono/cookie';
import { SandboxError } from '../errors.js';
import { ControlLoginPage } from '../pages/control-login.js';
import { safeEqual } from '../crypto/signature.js';
import { clockAdvanceProblem, parseDuration } from '../domain/duration.js';
import { OUTCOME_VERDICTS } from '../services/authentication.js';
import { AUTHENTICATION_OUTCOMES, orList } from '../domain/vocabularies.js';
import { VERSION } from '../version.js';
import type { AppDeps, AppEnv } from './app-env.js';
import { CONTROL_COOKIE } from './middleware/control-guard.js';
import { readJson } from './validation.js';
import { validate } from '../contracts/validate.js';
import { POSITIVE_DURATION_PATTERN } from '../contracts/patterns.js';
import { toClockView, toHealthView } from '../views/clock.js';
import { toPaymentView } from '../views/payment.js';
import { toControlTransactionView, toS2SStatusView } from '../views/s2s.js';
import { iso } from '../views/time.js';

/** POST /_sandbox/transactions/:transID/authenticate body. */
export const authenticateSchema = z.object({
  outcome: z.enum(AUTHENTICATION_OUTCOMES).describe(orList(AUTHENTICATION_OUTCOMES, true)),
});

/** POST /_sandbox/clock/advance body. */
export const advanceSchema = z.object({
  duration: z
    .string()
    .superRefine((text, ctx) => {
      const problem = clockAdvanceProblem(text);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ pattern: POSITIVE_DURATION_PATTERN })
    .describe('a duration with a unit such as "15m", "90s", "2h" or "1d" (at most 3650d); never negative'),
});

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
    const { outcome } = validate(authenticateSchema, await readJson(c));
    const id = c.req.param('transID');
    const { subjectType, challenge } = services.auth.completeFor(id, OUTCOME_VERDICTS[outcome]!, 'transID');
    const payment = subjectType === 'transaction' ? undefined : services.payments.byId(id)!;
    const after = payment ? toPaymentView(payment, services.payments.nextActionUrl(payment)) : toS2SStatusView(services.s2s.byTransId(id)!);
    deps.wake();
    return c.json({ ...after, authentication: challenge.state, redirect_url: services.auth.returnUrl(challenge) });
  });

  app.get('/clock', (c) => c.json(toClockView(services.clock.now(), services.clock.offset())));

  app.post('/clock/advance', async (c) => {
    const { duration } = validate(advanceSchema, await readJson(c));
    const now = services.clock.advance(parseDuration(duration)!);
    const jobs = services.jobs.runDue();
    deps.wake();
    return c.json({ ...toClockView(now, services.clock.offset()), jobs_run: jobs });
  });

  return app;
}
