// The hosted checkout page at a session's url (/pay/<token>): card, iDEAL and SEPA, as plain
// forms that work without JavaScript. Every POST carries the session's CSRF token; a session that
// is complete or expired answers 410 to every request, so a link pays at most once. These are the
// routes; the answers they share are in checkout-answers.tsx, the screens in src/pages
// (pages/checkout/screens.tsx, pages/checkout/parts.tsx).
import { Hono } from 'hono';
import { IDEAL_OUTCOMES, ibanProblem, normaliseIban, type IdealOutcome } from '../../domain/local-methods.js';
import { SandboxError, present } from '../../errors.js';
import type { AppDeps, AppEnv } from '../app-env.js';
import { cardSchema, type CardInput } from '../../contracts/v1-tokens.js';
import type { FormState } from '../../pages/checkout/parts.js';
import { IdealBankPage } from '../../pages/checkout/screens.js';
import { checkoutPageForm } from '../../contracts/checkout-page.js';
import type { OpenApiRoute } from '../openapi/route.js';
import { CHECKOUT_LINK_PAGES, FORM_PAGES, pageRoute } from '../openapi/pages.js';
import { checkoutAnswers, merchantReturnUrl, openForPost, type CheckoutAnswers } from './checkout-answers.js';

const CARD_MESSAGES: Record<string, string> = {
  number: 'Your card number is not valid. Check the digits (a test card such as 4242 4242 4242 4242 works).',
  expiry: 'Enter the expiry date as MM / YY, for example 12 / 30.',
  cvc: 'Enter the 3 or 4 digit security code from the back of the card.',
  name: 'Enter the name shown on the card.',
};

/** Reads the card form into the /v1/ card shape, collecting a message per bad field. */
function parseCardForm(form: Record<string, string>): { card?: CardInput; holder: string; state: FormState } {
  const values = { number: form.number ?? '', expiry: form.expiry ?? '', name: form.name ?? '' };
  const errors: Record<string, string> = {};
  const number = cardSchema().shape.number.safeParse(values.number);
  if (!number.success) errors.number = values.number.trim() ? CARD_MESSAGES.number : 'Enter your card number.';
  const expiry = /^(\d{1,2})\/?(\d{2})$/.exec(values.expiry.replace(/\s+/g, ''));
  const month = expiry ? Number(expiry[1]) : NaN;
  if (!expiry || month < 1 || month > 12) errors.expiry = CARD_MESSAGES.expiry;
  const cvc = (form.cvc ?? '').trim();
  if (!/^\d{3,4}$/.test(cvc)) errors.cvc = CARD_MESSAGES.cvc;
  const holder = values.name.trim();
  if (!holder || holder.length > 100) errors.name = CARD_MESSAGES.name;
  const state = { errors, values };
  if (Object.keys(errors).length > 0 || !number.success || !expiry) return { holder, state };
  return { card: { number: number.data, exp_month: month, exp_year: 2000 + Number(expiry[2]), cvc }, holder, state };
}

/** The checkout page routes, registered in this order: the page and card, then iDEAL, then SEPA. */
export function checkoutPages(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const answers = checkoutAnswers(deps);
  cardRoutes(app, deps, answers);
  idealRoutes(app, deps, answers);
  sepaRoutes(app, deps, answers);
  return app;
}

/** The page itself, the card form's post, and where the 3-D Secure page sends the customer back to. */
function cardRoutes(app: Hono<AppEnv>, deps: AppDeps, answers: CheckoutAnswers) {
  const { checkout, checkoutPayments } = deps.services;
  const { unknown, gone, page, methodFor } = answers;

  app.get('/pay/:token', (c) => {
    const session = checkout.byToken(c.req.param('token'));
    if (!session) return unknown(c);
    if (session.status !== 'open') return gone(c, session);
    return page(c, session, methodFor(session, c.req.query('method')));
  });

  app.post('/pay/:token/card', async (c) => {
    const loaded = await openForPost(deps, answers, c, 'card');
    if (!loaded.session) return loaded.response;
    const { session, form } = loaded;
    const { card, holder, state } = parseCardForm(form);
    if (!card) return page(c, session, 'card', 400, { state, notice: { kind: 'error', text: 'Check the highlighted fields.' } });
    let result: ReturnType<typeof checkoutPayments.payCard>;
    try {
      result = checkoutPayments.payCard(session, card, holder);
    } catch (err) {
      // The only card problem the service finds beyond the form's checks is an expiry in the past.
      if (err instanceof SandboxError && err.param === 'card.exp_year') {
        return page(c, session, 'card', 400, {
          state: { ...state, errors: { expiry: 'This card has expired. Use a card with an expiry date in the future.' } },
        });
      }
      throw err;
    }
    if (result.next === 'authenticate') return c.redirect(result.url, 303);
    if (result.next === 'complete')
      return c.redirect(merchantReturnUrl(present(checkout.byToken(session.token), `checkout session ${session.token}`), 'complete'), 303);
    // Declined: back to the form (a GET), which shows the decline and lets the customer try again.
    return c.redirect(`/pay/${session.token}?method=card`, 303);
  });

  // Where the 3-D Secure page sends the customer: on to the merchant once paid, else back to the form.
  app.get('/pay/:token/return', (c) => {
    const session = checkout.byToken(c.req.param('token'));
    if (!session) return unknown(c);
    if (session.status === 'complete') return c.redirect(merchantReturnUrl(session, 'complete'), 303);
    if (session.status !== 'open') return gone(c, session);
    return c.redirect(`/pay/${session.token}?method=card`, 303);
  });
}

/** The iDEAL bank choice, the bank's page, and the outcome picked on it. */
function idealRoutes(app: Hono<AppEnv>, deps: AppDeps, answers: CheckoutAnswers) {
  const { checkout, checkoutPayments } = deps.services;
  const { unknown, gone, page, merchantName } = answers;

  app.post('/pay/:token/ideal', async (c) => {
    const loaded = await openForPost(deps, answers, c, 'ideal');
    if (!loaded.session) return loaded.response;
    const { session, form } = loaded;
    const bank = form.bank ?? '';
    try {
      checkoutPayments.chooseIdealBank(session, bank);
    } catch (err) {
      if (err instanceof SandboxError && err.param === 'bank') {
        return page(c, session, 'ideal', 400, { state: { errors: { bank: 'Choose your bank from the list.' }, values: {} } });
      }
      throw err;
    }
    return c.redirect(`/pay/${session.token}/ideal`, 303);
  });

  app.get('/pay/:token/ideal', (c) => {
    const session = checkout.byToken(c.req.param('token'));
    if (!session) return unknown(c);
    if (session.status !== 'open') return gone(c, session);
    const payment = checkoutPayments.openIdealPayment(session);
    if (!payment) return c.redirect(`/pay/${session.token}?method=ideal`, 303);
    return c.html(<IdealBankPage session={session} merchantName={merchantName(session)} payment={payment} />);
  });

  app.post('/pay/:token/ideal/outcome', async (c) => {
    const loaded = await openForPost(deps, answers, c, 'ideal');
    if (!loaded.session) return loaded.response;
    const { session, form } = loaded;
    const outcome = form.outcome as IdealOutcome;
    if (!IDEAL_OUTCOMES.includes(outcome))
      return page(c, session, 'ideal', 400, { notice: { kind: 'error', text: 'Choose one of the listed payment statuses.' } });
    if (!checkoutPayments.openIdealPayment(session)) return c.redirect(`/pay/${session.token}?method=ideal`, 303);
    checkoutPayments.decideIdeal(session, outcome);
    const after = present(checkout.byToken(session.token), `checkout session ${session.token}`);
    if (after.status === 'complete') return c.redirect(merchantReturnUrl(after, 'complete'), 303);
    // Open: the customer goes back to the shop while the payment stays open at the bank.
    if (outcome === 'open') return c.redirect(merchantReturnUrl(after, 'open'), 303);
    return c.redirect(`/pay/${session.token}?method=ideal`, 303);
  });
}

/** The SEPA Direct Debit form's post. */
function sepaRoutes(app: Hono<AppEnv>, deps: AppDeps, answers: CheckoutAnswers) {
  const { checkout, checkoutPayments } = deps.services;
  app.post('/pay/:token/sepa', async (c) => {
    const loaded = await openForPost(deps, answers, c, 'sepa');
    if (!loaded.session) return loaded.response;
    const { session, form } = loaded;
    const iban = normaliseIban(form.iban ?? '');
    const holder = (form.holder ?? '').trim();
    const errors: Record<string, string> = {};
    const problem = ibanProblem(iban);
    if (problem) errors.iban = problem;
    if (!holder || holder.length > 100) errors.holder = 'Enter the name of the account holder.';
    if (Object.keys(errors).length > 0) {
      return answers.page(c, session, 'sepa', 400, {
        state: { errors, values: { iban: form.iban ?? '', holder: form.holder ?? '' } },
        notice: { kind: 'error', text: 'Check the highlighted fields.' },
      });
    }
    checkoutPayments.paySepa(session, iban, holder);
    return c.redirect(merchantReturnUrl(present(checkout.byToken(session.token), `checkout session ${session.token}`), 'complete'), 303);
  });
}

/** The routes of this module, for /openapi.json. */
export const checkoutPagesOpenApi: OpenApiRoute[] = [
  pageRoute('get', '/pay/:token', 'The hosted checkout page of a session (?method=card, ideal or sepa)', 'an HTML page', {
    htmlAnswers: CHECKOUT_LINK_PAGES,
  }),
  pageRoute('post', '/pay/:token/card', 'Pay the session by card', 'the page again with a notice', {
    body: checkoutPageForm,
    bodyType: 'application/x-www-form-urlencoded',
    redirects: { 303: "the authentication page, the merchant's return_url, or the page again" },
    htmlAnswers: { ...CHECKOUT_LINK_PAGES, ...FORM_PAGES },
  }),
  pageRoute('get', '/pay/:token/return', 'Where the authentication page sends the customer back to', 'the page again', {
    redirects: { 303: "the merchant's return_url once complete, else the checkout page" },
    htmlAnswers: CHECKOUT_LINK_PAGES,
  }),
  pageRoute('post', '/pay/:token/ideal', 'Pay the session with iDEAL: on to the bank page', 'the page again with a notice', {
    body: checkoutPageForm,
    bodyType: 'application/x-www-form-urlencoded',
    redirects: { 303: 'the bank page' },
    htmlAnswers: { ...CHECKOUT_LINK_PAGES, ...FORM_PAGES },
  }),
  pageRoute('get', '/pay/:token/ideal', "The iDEAL bank's page, where the customer picks the payment's outcome", 'an HTML page', {
    redirects: { 303: 'the checkout page when no iDEAL payment is open' },
    htmlAnswers: CHECKOUT_LINK_PAGES,
  }),
  pageRoute('post', '/pay/:token/ideal/outcome', 'The outcome picked on the bank page', 'the page again with a notice', {
    body: checkoutPageForm,
    bodyType: 'application/x-www-form-urlencoded',
    redirects: { 303: "the merchant's return_url, or the checkout page" },
    htmlAnswers: { ...CHECKOUT_LINK_PAGES, ...FORM_PAGES },
  }),
  pageRoute('post', '/pay/:token/sepa', 'Pay the session by SEPA Direct Debit', 'the page again with a notice', {
    body: checkoutPageForm,
    bodyType: 'application/x-www-form-urlencoded',
    redirects: { 303: "the merchant's return_url" },
    htmlAnswers: { ...CHECKOUT_LINK_PAGES, ...FORM_PAGES },
  }),
];
