// Whole screens of the hosted checkout: the payment page, the iDEAL test bank's outcome picker,
// and the 410 page of a used or expired link. Texts the customer reads are here; the routes are
// in src/http/customer-pages/checkout.tsx.
import { formatMoney } from '../../domain/money.js';
import { DECLINE_MESSAGES, type DeclineCode } from '../../domain/outcomes.js';
import { IDEAL_OUTCOMES, IDEAL_OUTCOME_TEXT, idealBank } from '../../domain/local-methods.js';
import type { CheckoutSession } from '../../store/checkout-sessions-repo.js';
import type { CheckoutMethod } from '../../domain/vocabularies.js';
import type { Payment } from '../../store/payments-repo.js';
import { Layout, LocalTime, ResultIcon, Summary } from '../layout.js';
import { CardForm, IdealForm, MerchantHeader, METHOD_LABELS, MethodTabs, SepaForm, type FormState } from './parts.js';

/** A message above the form: an error of the last attempt, or a hint. */
export interface Notice {
  kind: 'error' | 'info';
  text: string;
  link?: { href: string; label: string };
}

function why(payment: Payment): string {
  const code = payment.declineCode as DeclineCode | null;
  return code && code in DECLINE_MESSAGES ? DECLINE_MESSAGES[code] : 'the payment was refused';
}

/** What the page says about the session's latest attempt while the session is still open. */
export function attemptNotice(session: CheckoutSession, payment: Payment | undefined): Notice | undefined {
  if (!payment) return undefined;
  const card = payment.method === 'card';
  const label = card ? 'card payment' : `${METHOD_LABELS[payment.method as CheckoutMethod] ?? payment.method} payment`;
  switch (payment.status) {
    case 'declined':
      return card
        ? { kind: 'error', text: `Your card was declined: ${why(payment)}. Try another card or another payment method.` }
        : { kind: 'error', text: `Your ${label} failed: ${why(payment)}. Try again or choose another payment method.` };
    case 'canceled':
      return {
        kind: 'error',
        text: card
          ? 'The 3-D Secure check was cancelled, so you have not paid. Try again when you are ready.'
          : `You cancelled the ${label}. Try again or choose another payment method.`,
      };
    case 'expired':
      return {
        kind: 'error',
        text: card
          ? 'The 3-D Secure check timed out, so you have not paid. Please try again.'
          : `The ${label} expired before it was completed. Please try again.`,
      };
    case 'requires_action':
      if (payment.method === 'ideal') {
        const bank = session.attempt.idealBank ? idealBank(session.attempt.idealBank)?.name : undefined;
        return {
          kind: 'info',
          text: `Your iDEAL payment${bank ? ` at ${bank}` : ''} is still open.`,
          link: { href: `/pay/${session.token}/ideal`, label: 'Continue at your bank' },
        };
      }
      return undefined;
    case 'processing':
      return { kind: 'info', text: 'Your payment is being processed. The shop will confirm it once the bank answers.' };
    default:
      return undefined;
  }
}

function NoticeBox(props: { notice: Notice | undefined }) {
  const { notice } = props;
  if (!notice) return null;
  return (
    <div class={`notice ${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
      {notice.text}
      {notice.link ? (
        <>
          {' '}
          <a href={notice.link.href}>{notice.link.label}</a>
        </>
      ) : null}
    </div>
  );
}

/** The payment page of an open session. */
export function CheckoutPage(props: {
  session: CheckoutSession;
  merchantName: string;
  method: CheckoutMethod;
  notice?: Notice;
  state?: FormState;
}) {
  const { session, merchantName, method } = props;
  const rows: Array<[string, string | undefined]> = [
    ['Reference', session.reference ?? undefined],
    ['Email', session.customerEmail ?? undefined],
  ];
  return (
    <Layout title={`Pay ${merchantName}`}>
      <div class="card checkout">
        <MerchantHeader session={session} merchantName={merchantName} />
        <Summary rows={rows} />
        <NoticeBox notice={props.notice} />
        <MethodTabs session={session} current={method} />
        <h1 class="method-title">
          {method === 'card' ? 'Pay by card' : method === 'ideal' ? 'Pay with iDEAL' : 'Pay by SEPA Direct Debit'}
        </h1>
        {method === 'card' ? <CardForm session={session} state={props.state} /> : null}
        {method === 'ideal' ? <IdealForm session={session} state={props.state} /> : null}
        {method === 'sepa' ? <SepaForm session={session} merchantName={merchantName} state={props.state} /> : null}
      </div>
      <footer>
        Secured by paysandbox · This link expires at <LocalTime ms={session.expiresAt} />
      </footer>
    </Layout>
  );
}

/** The iDEAL test bank: pick the payment's status, as a test-mode bank page offers. */
export function IdealBankPage(props: { session: CheckoutSession; merchantName: string; payment: Payment }) {
  const { session, payment } = props;
  const bank = (session.attempt.idealBank && idealBank(session.attempt.idealBank)?.name) || payment.instrumentLabel;
  return (
    <Layout title={`iDEAL test bank: ${bank}`}>
      <div class="card">
        <p class="bank-name">{bank}</p>
        <h1>iDEAL test payment</h1>
        <p class="hint">This is a test-mode bank page. Choose the status the payment gets.</p>
        <Summary
          rows={[
            ['Pay to', props.merchantName],
            ['Amount', formatMoney(payment.amount, payment.currency)],
            ['Reference', session.reference ?? undefined],
          ]}
        />
        <form method="post" action={`/pay/${session.token}/ideal/outcome`}>
          <input type="hidden" name="csrf" value={session.csrf} />
          <fieldset>
            <legend>Payment status</legend>
            {IDEAL_OUTCOMES.map((outcome, index) => (
              <label class="choice" for={`outcome-${outcome}`}>
                <input type="radio" id={`outcome-${outcome}`} name="outcome" value={outcome} checked={index === 0} />
                <span>
                  <strong>{IDEAL_OUTCOME_TEXT[outcome].label}</strong> <span class="hint">{IDEAL_OUTCOME_TEXT[outcome].effect}</span>
                </span>
              </label>
            ))}
          </fieldset>
          <button type="submit">Continue</button>
        </form>
      </div>
    </Layout>
  );
}

/** The 410 page of a link that was used or has expired. */
export function LinkGonePage(props: { session: CheckoutSession; merchantName: string; returnUrl: string }) {
  const used = props.session.status === 'complete';
  const title = used ? 'This payment link has already been used' : 'This payment link has expired';
  return (
    <Layout title={title}>
      <div class={`card result ${used ? 'ok' : 'bad'}`}>
        <ResultIcon kind={used ? 'ok' : 'expired'} />
        <h1>{title}</h1>
        <p>
          {used
            ? 'The payment for this order was already made with this link. Nothing more to do here.'
            : 'This link is no longer valid, and nothing was charged with it. Return to the shop to start again.'}
        </p>
        {/* A return_url that is no URL (an old or imported row) falls back to this very page: no button then. */}
        {props.returnUrl === `/pay/${props.session.token}` ? null : (
          <a class="button" href={props.returnUrl}>
            Return to {props.merchantName}
          </a>
        )}
      </div>
    </Layout>
  );
}
