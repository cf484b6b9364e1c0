// The page at authurl: a simulated 3-D Secure OTP page (cards) or bank / wallet / UPI / QR page
// (other modes). Plain HTML forms; each POST carries the challenge's CSRF token. A finished
// challenge is single-use: the page shows the result and changes nothing. These are the screens;
// the routes that serve them are src/http/customer-pages/authenticate.tsx.
import { formatMoney } from '../../domain/money.js';
import { OTP_FAIL, OTP_PASS } from '../../domain/outcomes.js';
import type { Challenge } from '../../store/challenges-repo.js';
import { Layout, ResultIcon, Summary } from '../layout.js';
import { ChallengeActions, KIND_TEXT } from './challenge-kinds.js';

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
/** The open challenge: the OTP form or the kind's own page, with an optional notice. */
export function ChallengePage(props: { challenge: Challenge; notice?: string; now: number }) {
  const { challenge } = props;
  const isOtp = challenge.kind === 'otp';
  const kindText = challenge.kind === 'otp' ? undefined : KIND_TEXT[challenge.kind];
  return (
    <Layout title={kindText?.title ?? '3-D Secure authentication'}>
      <div class="card">
        <h1>{kindText?.title ?? 'Verify it is you'}</h1>
        <p class="hint">
          {kindText?.hint ?? 'Your bank (the card issuer) sent a one-time code to your phone. Enter it to confirm this payment.'}
        </p>
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
        Test codes: <code>{OTP_PASS}</code> passes, <code>{OTP_FAIL}</code> fails; anything else costs a try ({String(challenge.triesLeft)}{' '}
        left).
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
