// The security headers of every HTML page the sandbox serves, in one place: the customer pages
// (3-D Secure, bank, wallet, UPI and QR pages at authurl, hosted checkout and their results and
// 404s), the dashboard and its sign-in page. Every page gets the same policy: no inline script or
// style, nothing from other origins but images where a merchant logo can be shown, no referrer.
// They differ in one rule each, set here:
// - framing: the page at authurl may be shown in a frame by any site, because a merchant shows a
//   real 3-D Secure challenge in an iframe on its own checkout (sized by challengeWindowSize). Only
//   whoever holds the authurl (its token is the secret) can frame it, so that is the merchant.
//   Every other page (hosted checkout, dashboard, sign-in) refuses every frame.
// - form-action: the customer pages' forms end in a redirect to the merchant's return_url, which
//   a form-action rule would block, so only the dashboard pages restrict it to the sandbox.
// No Strict-Transport-Security: the sandbox serves plain http, where the header means nothing, and
// a TLS proxy in front of it sets its own.
import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

/** The kinds of page, by who may frame them and where their forms and images may go. */
export type PageKind = 'authentication' | 'checkout' | 'control';

const SELF = ["'self'"];
const RULES: Record<PageKind, { framable: boolean; logos: boolean; formAction?: string[] }> = {
  authentication: { framable: true, logos: false },
  checkout: { framable: false, logos: true },
  control: { framable: false, logos: false, formAction: SELF },
};

/** The secure-headers middleware of one kind of page. */
export function pageHeaders(kind: PageKind): MiddlewareHandler {
  const rule = RULES[kind];
  return secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: SELF,
      scriptSrc: SELF,
      styleSrc: SELF,
      connectSrc: SELF,
      imgSrc: rule.logos ? ["'self'", 'data:', 'https:', 'http:'] : ["'self'", 'data:'],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      ...(rule.formAction ? { formAction: rule.formAction } : {}),
      frameAncestors: rule.framable ? ['*'] : ["'none'"],
    },
    // X-Frame-Options cannot name "any site"; frame-ancestors decides where it is set.
    xFrameOptions: rule.framable ? false : 'DENY',
    strictTransportSecurity: false,
    referrerPolicy: 'no-referrer',
  });
}
