// The page at authurl: a simulated 3-D Secure OTP page (cards) or bank / wallet / UPI / QR page
// (other modes). Plain HTML forms; each POST carries the challenge's CSRF token. A finished
// challenge is single-use: the page shows the result and changes nothing.
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { AppDeps, AppEnv } from '../http/app.js';
import { safeEqual } from '../crypto/signature.js';
import { formatMoney } from '../domain/money.js';
import { OTP_FAIL, OTP_PASS } from '../domain/outcomes.js';
import type { Challenge } from '../store/challenges-repo.js';
import { Layout, ResultIcon, Summary } from './layout.js';
import { ChallengeActions, KIND_TEXT, kindProblem } from './challenge-kinds.js';

const RESULT_TEXT: Record<Exclude<Challenge['state'], 'open'>, { title: string; ok: boolean }> = {
  passed: { title: 'Authentication complete', ok: true },
  failed: { title: 'Authentication failed', ok: false },
  cancelled: { title: 'Payment cancelled', ok: false },
  expired: { title: 'This authentication has expired', ok: false },
};

function summaryRows(challenge: Challenge): Array<[string, string | undefined]> {
  const d = challenge.details;
  return [
    ['Merchant', d.merchant],
    ['Amount', d.amount && d.currency ? formatMoney(Number(d.amount), d.currency) : undefined],
    ['Card', d.card || undefined],
    ['Reference', d.reference],
  ];
}

/** The open challenge's page; `notice` is an error or hint shown above the form. */
function ChallengePage(props: { challenge: Challenge; notice?: string; now: number }) {
  const { challenge } = props;
  const isOtp = challenge.kind === 'otp';
  const kindText = challenge.kind === 'otp' ? undefined : KIND_TEXT[challenge.kind];
  return (
    <Layout title={kindText?.title ?? '3-D Secure authentication'}>
      <div class="card">
        <h1>{kindText?.title ?? 'Verify it is you'}</h1>
        <p class="hint">{kindText?.hint ?? 'Your bank (the card issuer) sent a one-time code to your phone. Enter it to confirm this payment.'}</p>
        <Summary rows={summaryRows(challenge)} />
        {props.notice ? (
          <div class="notice error" role="alert">
            {props.notice}
          </div>
        ) : null}
        {isOtp ? <OtpForm challenge={challenge} /> : <ChallengeActions challenge={challenge} now={props.now} />}
      </div>
    </Layout>
  );
}

function OtpForm(props: { challenge: Challenge }) {
  const { challenge } = props;
  return (
    <form method="post" action={`/authenticate/${challenge.token}`}>
      <input type="hidden" name="csrf" value={challenge.details.csrf} />
      <label for="otp">One-time code</label>
      <input id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength={8} required autofocus />
      <p class="hint">
        Test codes: <code>{OTP_PASS}</code> passes, <code>{OTP_FAIL}</code> fails; anything else costs a try ({String(challenge.triesLeft)} left).
      </p>
      <div class="actions">
        <button type="submit" name="action" value="submit">
          Submit
        </button>
        <button type="submit" name="action" value="cancel" class="secondary" formnovalidate>
          Cancel payment
        </button>
      </div>
    </form>
  );
}

/** The page of a finished challenge: its result and the way back to the merchant. */
export function ResultPage(props: { challenge: Challenge; returnUrl: string }) {
  const { challenge } = props;
  const text = RESULT_TEXT[challenge.state as Exclude<Challenge['state'], 'open'>];
  return (
    <Layout title={text.title}>
      <div class={`card result ${text.ok ? 'ok' : 'bad'}`}>
        <ResultIcon kind={text.ok ? 'ok' : challenge.state === 'expired' ? 'expired' : 'bad'} />
        <h1>{text.title}</h1>
        <p class="hint">This page has been used; visiting it again changes nothing.</p>
        <Summary rows={summaryRows(challenge)} />
        {/* A return_url that is no URL (an old or imported row) falls back to this very page: no button then. */}
        {props.returnUrl.endsWith(`/authenticate/${challenge.token}`) ? null : (
          <a class="button" href={props.returnUrl}>
            Return to {challenge.details.merchant ?? 'the merchant'}
          </a>
        )}
      </div>
    </Layout>
  );
}

/** A page for an unknown token or another page-level error, with the right status. */
export function MessagePage(props: { title: string; message: string }) {
  return (
    <Layout title={props.title}>
      <div class="card result bad">
        <h1>{props.title}</h1>
        <p>{props.message}</p>
      </div>
    </Layout>
  );
}

/** The authentication page routes. */
export function authenticatePages(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { auth } = deps.services;

  const load = (c: Context) => auth.find(c.req.param('token') ?? '');
  const now = () => deps.services.clock.now();
  const unknown = (c: Context) =>
    c.html(<MessagePage title="Link not valid" message="This authentication link is not valid. Start the payment again from the shop." />, 404);

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
      return c.html(<ChallengePage challenge={challenge} now={now()} notice="This form has expired or was not sent from this page. Please try again." />, 403);
    }
    const action = String(form.action ?? 'submit');
    if (action === 'cancel') return c.redirect(auth.returnUrl(auth.complete(challenge.token, 'cancel')), 303);
    if (challenge.kind === 'otp') {
      const otp = String(form.otp ?? '').trim();
      if (!/^\d{4,8}$/.test(otp)) return c.html(<ChallengePage challenge={challenge} now={now()} notice="Enter the one-time code: 4 to 8 digits." />, 400);
      const result = auth.submitOtp(challenge.token, otp);
      if (result.done) return c.redirect(auth.returnUrl(result.challenge), 303);
      const fresh = auth.find(challenge.token)!;
      return c.html(<ChallengePage challenge={fresh} now={now()} notice={`That code is incorrect. ${result.triesLeft} ${result.triesLeft === 1 ? 'try' : 'tries'} left.`} />, 422);
    }
    const problem = kindProblem(challenge, action, form);
    if (problem) return c.html(<ChallengePage challenge={challenge} now={now()} notice={problem} />, 400);
    if (action === 'approve' || action === 'decline') {
      return c.redirect(auth.returnUrl(auth.complete(challenge.token, action === 'approve' ? 'pass' : 'fail')), 303);
    }
    return c.html(<ChallengePage challenge={challenge} now={now()} notice="Choose Approve, Decline or Cancel." />, 400);
  });

  return app;
}
