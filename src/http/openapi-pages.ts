// The customer's pages (3-D Secure / bank / UPI / QR authentication, hosted checkout), the control
// sign-in page and the static assets in /openapi.json: what each answers (HTML, a 303 to the next
// page, an HTML page at an error status), so the document covers every route the app serves.
import * as z from 'zod';
import type { OpenApiRoute } from './openapi-route.js';
import { CUSTOMER_PAGE } from './on-error.js';

const page = (
  method: OpenApiRoute['method'],
  path: string,
  summary: string,
  response: string,
  extra: Partial<OpenApiRoute> = {},
): OpenApiRoute => ({
  method,
  path,
  summary,
  response,
  tag: 'Pages',
  auth: 'none',
  responseType: 'text/html',
  // A browser reads a customer page's errors: they are HTML pages too (http/on-error.ts).
  ...(CUSTOMER_PAGE.test(path) ? { htmlErrors: true } : {}),
  ...extra,
});

const asset = (path: string, summary: string, type: string): OpenApiRoute =>
  page('get', path, summary, type, { tag: 'Assets', responseType: type });

/** The HTML pages a link the customer holds can answer with instead of the page itself. */
const LINK_PAGES = { 404: 'the link is not valid (an HTML page)' };
const CHECKOUT_LINK_PAGES = { ...LINK_PAGES, 410: 'the session is over (complete or expired): an HTML page with the way back to the shop' };
/** What the pages' forms answer when the form is wrong, stale or refused: the page again with a notice. */
const FORM_PAGES = {
  400: 'the form is incomplete or invalid: the page again with a notice',
  403: 'the form was not sent from this page (stale token): the page again',
  422: 'the code or card was refused: the page again with a notice',
};

// The pages read their forms themselves (a customer's browser sends them); these are the fields they take.
const authenticateForm = z.object({
  csrf: z.string().describe('the token of the page that sent the form'),
  action: z.enum(['approve', 'decline', 'cancel', 'submit']).optional().describe('the button pressed'),
  otp: z.string().optional().describe('the one-time code, 4 to 8 digits (OTP challenges)'),
});
const checkoutForm = z
  .record(z.string(), z.string())
  .describe("the fields of the page's form (card details, bank, IBAN) and its csrf token");
const loginForm = z.object({ token: z.string().describe('the --control-token value') });

/** The customer's pages, the sign-in page and the assets. */
export const PAGE_ROUTES: OpenApiRoute[] = [
  page(
    'get',
    '/authenticate/:token',
    'The authentication page of a payment (3-D Secure, bank, UPI or QR), or its result once decided',
    'an HTML page',
    { htmlAnswers: LINK_PAGES },
  ),
  page(
    'post',
    '/authenticate/:token',
    'Approve, decline, cancel or submit the one-time code; then back to the merchant',
    'the page again when the code was wrong',
    {
      body: authenticateForm,
      bodyType: 'application/x-www-form-urlencoded',
      redirects: { 303: "the merchant's return_url (or the checkout page) with the outcome" },
      htmlAnswers: { ...LINK_PAGES, ...FORM_PAGES, 409: 'the authentication was already decided: its result page' },
    },
  ),
  page('get', '/pay/:token', 'The hosted checkout page of a session (?method=card, ideal or sepa)', 'an HTML page', {
    htmlAnswers: CHECKOUT_LINK_PAGES,
  }),
  page('post', '/pay/:token/card', 'Pay the session by card', 'the page again with a notice', {
    body: checkoutForm,
    bodyType: 'application/x-www-form-urlencoded',
    redirects: { 303: "the authentication page, the merchant's return_url, or the page again" },
    htmlAnswers: { ...CHECKOUT_LINK_PAGES, ...FORM_PAGES },
  }),
  page('get', '/pay/:token/return', 'Where the authentication page sends the customer back to', 'the page again', {
    redirects: { 303: "the merchant's return_url once complete, else the checkout page" },
    htmlAnswers: CHECKOUT_LINK_PAGES,
  }),
  page('post', '/pay/:token/ideal', 'Pay the session with iDEAL: on to the bank page', 'the page again with a notice', {
    body: checkoutForm,
    bodyType: 'application/x-www-form-urlencoded',
    redirects: { 303: 'the bank page' },
    htmlAnswers: { ...CHECKOUT_LINK_PAGES, ...FORM_PAGES },
  }),
  page('get', '/pay/:token/ideal', "The iDEAL bank's page, where the customer picks the payment's outcome", 'an HTML page', {
    redirects: { 303: 'the checkout page when no iDEAL payment is open' },
    htmlAnswers: CHECKOUT_LINK_PAGES,
  }),
  page('post', '/pay/:token/ideal/outcome', 'The outcome picked on the bank page', 'the page again with a notice', {
    body: checkoutForm,
    bodyType: 'application/x-www-form-urlencoded',
    redirects: { 303: "the merchant's return_url, or the checkout page" },
    htmlAnswers: { ...CHECKOUT_LINK_PAGES, ...FORM_PAGES },
  }),
  page('post', '/pay/:token/sepa', 'Pay the session by SEPA Direct Debit', 'the page again with a notice', {
    body: checkoutForm,
    bodyType: 'application/x-www-form-urlencoded',
    redirects: { 303: "the merchant's return_url" },
    htmlAnswers: { ...CHECKOUT_LINK_PAGES, ...FORM_PAGES },
  }),
  page('get', '/_sandbox/login', 'Dashboard sign-in form (only needed with --control-token)', 'an HTML form', { tag: 'Sandbox control' }),
  page(
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
  asset('/assets/pay.css', "The customer pages' stylesheet", 'text/css'),
  asset('/assets/local-time.js', "Shows times in the visitor's time zone", 'text/javascript'),
  asset('/favicon.ico', 'The icon (SVG)', 'image/svg+xml'),
];
