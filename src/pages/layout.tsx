// The frame of every customer-facing page: a test-mode banner, one card, no scripts required.
import type { Child } from 'hono/jsx';
import { raw } from 'hono/html';
import { iso } from '../views/time.js';

/** The doctype every page starts with, so browsers render in standards mode, not quirks mode. */
export const DOCTYPE = raw('<!DOCTYPE html>');

/** The <head> every page has: charset, viewport, noindex, the favicon, one stylesheet and one deferred script (CSP allows only same-origin scripts). */
export function DocumentHead(props: { title: string; stylesheet: string; script: string }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex" />
      <title>{props.title}</title>
      <link rel="icon" href="/favicon.ico" type="image/svg+xml" />
      <link rel="stylesheet" href={props.stylesheet} />
      <script src={props.script} defer></script>
    </head>
  );
}

/** Wraps page content in the document shell; `title` is escaped like everything else. */
export function Layout(props: { title: string; children: Child }) {
  return (
    <>
      {DOCTYPE}
      <html lang="en">
        <DocumentHead title={props.title} stylesheet="/assets/pay.css" script="/assets/local-time.js" />
        <body>
          <div class="sandbox-banner" role="note">
            Test mode: paysandbox simulates this page. No real money moves.
          </div>
          <main>{props.children}</main>
        </body>
      </html>
    </>
  );
}

/** A two-column list of facts (merchant, amount, card...). */
export function Summary(props: { rows: Array<[string, string | undefined]> }) {
  return (
    <dl class="summary">
      {props.rows
        .filter(([, value]) => value)
        .map(([label, value]) => (
          <>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </>
        ))}
    </dl>
  );
}

/**
 * A time the customer reads: UTC with the zone named, in a <time> element that
 * /assets/local-time.js rewrites into the customer's own zone (the server does not know it).
 */
export function LocalTime(props: { ms: number; seconds?: boolean }) {
  const at = iso(props.ms);
  return (
    <time datetime={at} data-local-time={props.seconds ? 'seconds' : 'minutes'}>
      {at.slice(11, props.seconds ? 19 : 16)} UTC
    </time>
  );
}

/** The big icon of a result page, drawn inline so it shows without any emoji or symbol font. */
export function ResultIcon(props: { kind: 'ok' | 'bad' | 'expired' }) {
  return (
    <div class="icon">
      <svg
        viewBox="0 0 48 48"
        width="48"
        height="48"
        aria-hidden="true"
        focusable="false"
        fill="none"
        stroke="currentColor"
        stroke-width="3.5"
        stroke-linecap="round"
        stroke-linejoin="round"
      >
        <circle cx="24" cy="24" r="20" />
        {props.kind === 'ok' ? (
          <path d="M15 24.5l6 6 12-13" />
        ) : props.kind === 'bad' ? (
          <path d="M17 17l14 14M31 17L17 31" />
        ) : (
          <path d="M24 13v11l7 5" />
        )}
      </svg>
    </div>
  );
}
