// The HTML answer of a customer page (the authentication page at authurl, the hosted checkout page)
// to an error: a browser reads these answers, so an error is a page in the same layout with the
// error's status, saying what went wrong and what to do, never a JSON body. http/on-error.ts
// renders it for every error on a /authenticate/ or /pay/ path.
import type { ErrorCode, SandboxError } from '../errors.js';
import { Layout } from './layout.js';

/** The heading of each error a customer page can meet; any other code is "Request not accepted". */
const TITLES: Partial<Record<ErrorCode, string>> = {
  route_not_found: 'Page not found',
  method_not_allowed: 'Method not allowed',
  unsupported_content_type: 'Form not sent as a form',
  invalid_encoding: 'Form not readable',
  body_incomplete: 'Form not received in full',
  body_too_large: 'Form too large',
  database_busy: 'Sandbox busy',
  storage_full: 'Sandbox disk full',
  internal_error: 'Something went wrong',
};

/** What to do next, besides the message (which says what was wrong): the fix as a browser user or a test sees it. */
const NEXT_STEPS: Partial<Record<ErrorCode, string>> = {
  route_not_found:
    'Open the link the shop gave you (a checkout session url /pay/<token>, or the authurl /authenticate/<token> of a 3-D Secure payment).',
  method_not_allowed: 'Open the page in a browser and use its buttons; they send the method the page takes.',
  unsupported_content_type:
    'Submit the form from the page itself: a browser sends it as application/x-www-form-urlencoded. A test that posts it must send that Content-Type.',
  invalid_encoding: 'Submit the form from the page itself; a test that posts it must send UTF-8 text.',
  body_incomplete: 'Submit the form again.',
  body_too_large: 'Submit the form from the page itself; its fields are far smaller than the limit.',
  database_busy: 'Wait a second and submit again; nothing was changed.',
  storage_full: 'Free space on the disk that holds the sandbox database, then submit again; nothing was changed.',
  internal_error: 'Report it with the request id below; it is a bug in the sandbox, not something you did.',
};

/** The page of one error; every text is escaped (hono/jsx escapes children and attributes). */
export function ErrorPage(props: { error: SandboxError; requestId: string }) {
  const { error } = props;
  const title = TITLES[error.code] ?? 'Request not accepted';
  return (
    <Layout title={title}>
      <div class="card result bad">
        <h1>{title}</h1>
        <p>{error.message}</p>
        <p>{NEXT_STEPS[error.code] ?? 'Go back to the page and try again.'}</p>
        <p class="hint">
          Error {error.code} (HTTP {error.status}), request {props.requestId}
        </p>
      </div>
    </Layout>
  );
}
