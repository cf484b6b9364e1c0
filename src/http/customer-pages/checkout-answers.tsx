// The answers the hosted checkout routes share (http/customer-pages/checkout.tsx): the unknown-link and gone pages,
// the checkout page itself with its notice, which method it shows, and the checks of every form post.
import type { Context } from 'hono';
import { safeEqual } from '../../signatures/signing.js';
import type { AppDeps } from '../app-env.js';
import { readForm } from '../validation.js';
import type { CheckoutSession } from '../../store/checkout-sessions-repo.js';
import type { CheckoutMethod } from '../../domain/vocabularies.js';
import type { FormState } from '../../pages/checkout/parts.js';
import { CheckoutPage, LinkGonePage, attemptNotice, type Notice } from '../../pages/checkout/screens.js';
import { MessagePage } from '../../pages/authenticate/page.js';
import { urlWithQuery } from '../../domain/http-url.js';
import { present } from '../../errors.js';

/** The merchant's return_url with the session id and the status the customer left with; the session's own page if it is no URL. */
export function merchantReturnUrl(session: CheckoutSession, status: string): string {
  return urlWithQuery(session.returnUrl, { session_id: session.id, status }, `/pay/${session.token}`);
}

export type CheckoutAnswers = ReturnType<typeof checkoutAnswers>;

/** The pages the checkout routes answer with, bound to the services. */
export function checkoutAnswers(deps: AppDeps) {
  const { checkoutPayments, credentials } = deps.services;
  const merchantName = (session: CheckoutSession) =>
    present(credentials.merchant(session.merchantId), `merchant ${session.merchantId}`).name;

  const unknown = (c: Context) =>
    c.html(
      <MessagePage title="Payment link not valid" message="This payment link is not valid. Start the payment again from the shop." />,
      404,
    );
  const gone = (c: Context, session: CheckoutSession) =>
    c.html(
      <LinkGonePage session={session} merchantName={merchantName(session)} returnUrl={merchantReturnUrl(session, session.status)} />,
      410,
    );

  /** The page itself, with the last attempt's notice unless another is given. */
  const page = (
    c: Context,
    session: CheckoutSession,
    method: CheckoutMethod,
    status: 200 | 400 | 403 | 422 = 200,
    extra: { notice?: Notice; state?: FormState } = {},
  ) =>
    c.html(
      <CheckoutPage
        session={session}
        merchantName={merchantName(session)}
        method={method}
        notice={extra.notice ?? attemptNotice(session, checkoutPayments.lastAttempt(session))}
        state={extra.state}
      />,
      status,
    );

  /** Which method to show: the one asked for if offered, else the last attempt's, else the first. */
  const methodFor = (session: CheckoutSession, asked: string | undefined): CheckoutMethod => {
    if (asked && session.methods.includes(asked as CheckoutMethod)) return asked as CheckoutMethod;
    const last = checkoutPayments.lastAttempt(session)?.method;
    return last && session.methods.includes(last as CheckoutMethod) ? (last as CheckoutMethod) : session.methods[0];
  };

  return { merchantName, unknown, gone, page, methodFor };
}

/** Loads an open session for a form post and checks its CSRF token; otherwise answers the page to show. */
export async function openForPost(deps: AppDeps, answers: CheckoutAnswers, c: Context, method: CheckoutMethod) {
  const { unknown, gone, page, methodFor } = answers;
  const session = deps.services.checkout.byToken(c.req.param('token') ?? '');
  if (!session) return { response: unknown(c) };
  if (session.status !== 'open') return { response: gone(c, session) };
  const form = await readForm(c);
  if (!session.methods.includes(method))
    return {
      response: page(c, session, methodFor(session, undefined), 400, {
        notice: { kind: 'error', text: 'This payment method is not offered for this payment.' },
      }),
    };
  if (!safeEqual(form.csrf ?? '', session.csrf)) {
    return {
      response: page(c, session, method, 403, {
        notice: { kind: 'error', text: 'This form has expired or was not sent from this page. Please try again.' },
      }),
    };
  }
  return { session, form };
}
