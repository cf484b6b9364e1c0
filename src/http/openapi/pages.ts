// The OpenAPI entries of HTML pages (the customer's authentication and checkout pages, the control
// sign-in form): what each answers (HTML, a 303 to the next page, an HTML page at an error status).
// Each page module lists its own routes with pageRoute.
import type { OpenApiRoute } from './route.js';
import { CUSTOMER_PAGE } from '../on-error.js';

/** An OpenApiRoute of a customer's page: tag Pages, no credential, an HTML answer. */
export const pageRoute = (
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

/** The HTML pages a link the customer holds can answer with instead of the page itself. */
export const LINK_PAGES = { 404: 'the link is not valid (an HTML page)' };
/** LINK_PAGES of a checkout link, which also ends. */
export const CHECKOUT_LINK_PAGES = {
  ...LINK_PAGES,
  410: 'the session is over (complete or expired): an HTML page with the way back to the shop',
};
/** What the pages' forms answer when the form is wrong, stale or refused: the page again with a notice. */
export const FORM_PAGES = {
  400: 'the form is incomplete or invalid: the page again with a notice',
  403: 'the form was not sent from this page (stale token): the page again',
  422: 'the code or card was refused: the page again with a notice',
};
