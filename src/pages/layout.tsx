// The frame of every customer-facing page: a test-mode banner, one card, no scripts required.
import type { Child } from 'hono/jsx';

/** Wraps page content in the document shell; `title` is escaped like everything else. */
export function Layout(props: { title: string; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{props.title}</title>
        <link rel="stylesheet" href="/assets/pay.css" />
      </head>
      <body>
        <div class="sandbox-banner" role="note">Test mode: paysandbox simulates this page. No real money moves.</div>
        <main>{props.children}</main>
      </body>
    </html>
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
