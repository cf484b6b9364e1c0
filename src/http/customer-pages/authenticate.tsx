// The routes of the page at authurl (/authenticate/<token>): each POST carries the challenge's CSRF
// token; a finished challenge is single-use and answers with its result page, changing nothing.
// The screens are in src/pages/authenticate/page.tsx.
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { AppDeps, AppEnv } from '../app-env.js';
import type { Challenge } from '../../store/challenges-repo.js';
import { safeEqual } from '../../signatures/signing.js';
import { kindProblem } from '../../pages/authenticate/challenge-kinds.js';
import { ChallengePage, MessagePage, ResultPage } from '../../pages/authenticate/page.js';
import { authenticatePageForm } from '../../contracts/authentication.js';
import type { OpenApiRoute } from '../openapi/route.js';
import { FORM_PAGES, LINK_PAGES, pageRoute } from '../openapi/pages.js';
import { present } from '../../errors.js';

/** The authentication page routes. */
export function authenticatePages(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { auth } = deps.services;

  const load = (c: Context) => auth.find(c.req.param('token') ?? '');
  const now = () => deps.services.clock.now();
  const unknown = (c: Context) =>
    c.html(
      <MessagePage title="Link not valid" message="This authentication link is not valid. Start the payment again from the shop." />,
      404,
    );

  app.get('/authenticate/:token', (c) => {
    const challenge = load(c);
    if (!challenge) return unknown(c);
    if (challenge.state !== 'open') return c.html(<ResultPage challenge={challenge} returnUrl={auth.returnUrl(challenge)} />);
    return c.html(<ChallengePage challenge={challenge} now={now()} />);
  });

  app.post('/authenticate/:token', async (c) => {
    const challenge = load(c);
    if (!challenge) return unknown(c);
    // A malformed body (multipart without a boundary) makes parseBody throw, which was a 500:
    // read it as an empty form instead, which the CSRF check below refuses with the page.
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, string>);
    if (challenge.state !== 'open') return c.html(<ResultPage challenge={challenge} returnUrl={auth.returnUrl(challenge)} />, 409);
    if (!safeEqual(String(form.csrf ?? ''), challenge.details.csrf ?? '')) {
      return c.html(
        <ChallengePage
          challenge={challenge}
          now={now()}
          notice="This form has expired or was not sent from this page. Please try again."
        />,
        403,
      );
    }
    const action = String(form.action ?? 'submit');
    if (action === 'cancel') return c.redirect(auth.returnUrl(auth.complete(challenge.token, 'cancel')), 303);
    if (challenge.kind === 'otp') return answerOtp(c, deps, challenge, String(form.otp ?? ''));
    const problem = kindProblem(challenge, action, form);
    if (problem) return c.html(<ChallengePage challenge={challenge} now={now()} notice={problem} />, 400);
    if (action === 'approve' || action === 'decline') {
      return c.redirect(auth.returnUrl(auth.complete(challenge.token, action === 'approve' ? 'pass' : 'fail')), 303);
    }
    return c.html(<ChallengePage challenge={challenge} now={now()} notice="Choose Approve, Decline or Cancel." />, 400);
  });

  return app;
}

/** The routes of this module, for /openapi.json. */
export const authenticatePagesOpenApi: OpenApiRoute[] = [
  pageRoute(
    'get',
    '/authenticate/:token',
    'The authentication page of a payment (3-D Secure, bank, UPI or QR), or its result once decided',
    'an HTML page',
    { htmlAnswers: LINK_PAGES },
  ),
  pageRoute(
    'post',
    '/authenticate/:token',
    'Approve, decline, cancel or submit the one-time code; then back to the merchant',
    'the page again when the code was wrong',
    {
      body: authenticatePageForm,
      bodyType: 'application/x-www-form-urlencoded',
      redirects: { 303: "the merchant's return_url (or the checkout page) with the outcome" },
      htmlAnswers: { ...LINK_PAGES, ...FORM_PAGES, 409: 'the authentication was already decided: its result page' },
    },
  ),
];
/** The answer to a one-time code: back to the shop when it ends the challenge, else the page with the tries left. */
function answerOtp(c: Context, deps: AppDeps, challenge: Challenge, typed: string) {
  const { auth, clock } = deps.services;
  const otp = typed.trim();
  if (!/^\d{4,8}$/.test(otp))
    return c.html(<ChallengePage challenge={challenge} now={clock.now()} notice="Enter the one-time code: 4 to 8 digits." />, 400);
  const result = auth.submitOtp(challenge.token, otp);
  if (result.done) return c.redirect(auth.returnUrl(result.challenge), 303);
  const fresh = present(auth.find(challenge.token), `challenge ${challenge.token}`);
  return c.html(
    <ChallengePage
      challenge={fresh}
      now={clock.now()}
      notice={`That code is incorrect. ${result.triesLeft} ${result.triesLeft === 1 ? 'try' : 'tries'} left.`}
    />,
    422,
  );
}
