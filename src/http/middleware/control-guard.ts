// The one guard of every /_sandbox route, the JSON control API and the dashboard alike, applied
// once in createApp. The control plane resets state, replays webhooks and exports private keys, so
// a web page open in the developer's browser must neither drive it nor read it:
// (a) the Host must be a loopback name, --public-url's host or an --allowed-host (a DNS-rebinding
//     page reaches 127.0.0.1 under its own name, which lands here);
// (b) the caller must be on loopback, or present the --control-token (bearer or sign-in cookie),
//     unless --control-open lets every address in (a private network: a compose project, a CI job);
// (c) a state-changing request a browser marks as cross-site is refused: SameSite cookies do not
//     stop a page on another port of 127.0.0.1, and without a token there is no cookie at all;
// (d) the JSON routes take a state-changing request's body only as Content-Type: application/json,
//     which no HTML form and no no-cors fetch() can send without a CORS preflight (which nothing here
//     answers). A request with no body at all (no Content-Type, Content-Length 0 or absent, not
//     chunked) may leave the header out, so a client generated from the document can call
//     POST /_sandbox/chargebacks/{id}/win as documented: bodiless. An HTML form always sends a
//     Content-Type (even an empty one), and a page's body-less fetch() across origins carries Origin
//     and Sec-Fetch-Site, which (c) refuses first; DELETE, PUT and PATCH cross origins only after a
//     preflight anyway.
// A write to a /_sandbox path that does not take its method skips (d): routing answers it 405 with
// Allow (or 404), as everywhere else, instead of asking for JSON it would never read.
import type { Context, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app-env.js';
import { getCookie } from 'hono/cookie';
import type { Config } from '../../config.js';
import { safeEqual } from '../../signatures/signing.js';
import { SandboxError } from '../../errors.js';
import { clientIp, isLoopback } from './client-ip.js';

/** The cookie that carries the control token for browsers (set by POST /_sandbox/login). */
export const CONTROL_COOKIE = 'sandbox_control';
const LOGIN_PATH = '/_sandbox/login';
/** Methods that only read; every other method changes state. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A Host value split into its lower-cased name ("[::1]" keeps its brackets) and port (when given). */
function splitHost(host: string): { name: string; port: string | undefined } {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host.trim().toLowerCase());
  return match ? { name: match[1], port: match[2] } : { name: host.toLowerCase(), port: undefined };
}

/** True for names that always mean this machine: localhost (and *.localhost, which browsers resolve to loopback themselves), 127.0.0.0/8 and [::1]. */
function isLoopbackHostName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost') || name === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** The Host allowlist: loopback at any port, plus --public-url's host and each --allowed-host (any port when the entry names none). */
function hostAllowed(host: string, extra: readonly string[]): boolean {
  const sent = splitHost(host);
  if (isLoopbackHostName(sent.name)) return true;
  return extra.some((entry) => {
    const allowed = splitHost(entry);
    return allowed.name === sent.name && (allowed.port === undefined || allowed.port === sent.port);
  });
}

/** The dashboard's HTML forms (sign-in, Replay, Approve / Decline); every other /_sandbox route takes JSON. */
function isFormRoute(path: string): boolean {
  return path === LOGIN_PATH || path.startsWith('/_sandbox/dashboard/');
}

/** This request's Host: the header as the client sent it (in-process app.request() has none, so its URL's). */
function requestHost(c: Context): string {
  return c.req.header('host') ?? new URL(c.req.url).host;
}

/** Refuses a request a browser sent from another origin (scheme, host and port); non-browser clients send neither header. */
function refuseCrossSite(c: Context, trustedOrigins: readonly string[]): void {
  const site = c.req.header('sec-fetch-site');
  // A browser that sends Sec-Fetch-Site (no page can set it) has said it all: the dashboard's own
  // forms say same-origin yet carry Origin: null, as its pages' Referrer-Policy is no-referrer.
  // "none" is a navigation the user started (typed address, bookmark), never a page's doing.
  if (site !== undefined) {
    if (site === 'same-origin' || site === 'none') return;
    throw new SandboxError(
      'cross_site_refused',
      `the browser marked this ${c.req.method} as Sec-Fetch-Site: ${site}: the control API takes state-changing requests only from its own pages (same origin, port included); use the dashboard at this address, or the CLI`,
      'sec-fetch-site',
    );
  }
  // Older browsers send only Origin: it must be this sandbox's own.
  const origin = c.req.header('origin');
  if (origin === undefined) return;
  const own = `${new URL(c.req.url).protocol}//${requestHost(c)}`.toLowerCase();
  if (origin.toLowerCase() !== own && !trustedOrigins.includes(origin.toLowerCase())) {
    throw new SandboxError(
      'cross_site_refused',
      `this ${c.req.method} came from a page at Origin ${origin}, not from this sandbox (${own}): the control API takes state-changing requests only from its own origin, port included; use the dashboard at this address, or the CLI`,
      'origin',
    );
  }
}

/** True when the request carries no body: no Content-Length (or 0) and no chunked Transfer-Encoding. */
function bodiless(c: Context): boolean {
  const length = c.req.header('content-length');
  return (length === undefined || length.trim() === '0') && c.req.header('transfer-encoding') === undefined;
}

/** (d): a JSON route's write carries application/json, or no body and no Content-Type at all. */
function requireJsonOrNothing(c: Context): void {
  const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/json' || (type === '' && bodiless(c))) return;
  throw new SandboxError(
    'unsupported_content_type',
    `Content-Type must be application/json on ${c.req.method} ${c.req.path}, got ${type ? `"${type}"` : 'no Content-Type on a body'}; send a JSON body with that header (or no body at all where the route takes none), as the CLI does`,
  );
}

/**
 * The guard of every /_sandbox route: Host allowlist, loopback-or-token, same-origin writes, JSON-only
 * JSON routes. `allowedAt` names the methods a path takes (method-not-allowed.ts); without it every
 * write is held to (d).
 */
export function controlGuard(
  config: Pick<Config, 'controlToken' | 'controlOpen' | 'publicUrl' | 'allowedHosts'>,
  allowedAt?: (path: string) => string[],
): MiddlewareHandler<AppEnv> {
  const publicUrl = config.publicUrl === undefined ? undefined : new URL(config.publicUrl);
  const extraHosts = [...(publicUrl ? [publicUrl.host] : []), ...config.allowedHosts];
  // Behind a TLS proxy the browser's Origin is --public-url's (https) while this request is plain http.
  const trustedOrigins = publicUrl ? [publicUrl.origin.toLowerCase()] : [];
  const token = config.controlToken;
  return createMiddleware<AppEnv>(async (c, next) => {
    const host = requestHost(c);
    if (!hostAllowed(host, extraHosts)) {
      throw new SandboxError(
        'host_not_allowed',
        `/_sandbox answers only to a loopback Host such as 127.0.0.1 or localhost, or the host of --public-url (this request named host "${host}"); if you reach the sandbox by that name on purpose, start it with --allowed-host ${splitHost(host).name}`,
        'host',
      );
    }
    if (token !== undefined) {
      if (c.req.path !== LOGIN_PATH) {
        const header = c.req.header('authorization') ?? '';
        const sent = header.startsWith('Bearer ') ? header.slice(7) : (getCookie(c, CONTROL_COOKIE) ?? '');
        if (!safeEqual(sent, token)) {
          // A person opening the dashboard gets the sign-in form rather than a JSON error.
          if (c.req.method === 'GET' && (c.req.header('accept') ?? '').includes('text/html')) return c.redirect(LOGIN_PATH, 303);
          throw new SandboxError(
            'control_forbidden',
            'the control API needs Authorization: Bearer <control token> (set with --control-token)',
          );
        }
      }
    } else if (!config.controlOpen && !isLoopback(clientIp(c))) {
      throw new SandboxError(
        'control_forbidden',
        'the control API answers loopback callers only; start the sandbox with --control-token (or --control-open on a private network) to allow others',
      );
    }
    if (!SAFE_METHODS.has(c.req.method)) {
      refuseCrossSite(c, trustedOrigins);
      const routed = allowedAt === undefined || allowedAt(c.req.path).includes(c.req.method);
      if (routed && !isFormRoute(c.req.path)) requireJsonOrNothing(c);
    }
    await next();
  });
}
