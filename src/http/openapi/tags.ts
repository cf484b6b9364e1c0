// The document's top-level `tags`: every group an operation names, with what it holds and which
// credential it takes. Generators and documentation tools group by them; linters (Spectral's
// operation-tag-defined, Redocly's) require each operation's tag to be declared here.

/** Each tag an operation or webhook names, in the order documentation tools show them. */
export const OPENAPI_TAGS: ReadonlyArray<{ name: string; description: string }> = [
  {
    name: 'S2S',
    description:
      "The gateway specification's server-to-server interface: card and alternative payments (JSON or encrypted), the authstatus URL and refund requests. The terminal credential (public_key, terNO) is in the body.",
  },
  {
    name: 'Payments',
    description: 'The bearer payment API (Authorization: Bearer sk_test_...): create, capture, cancel and read payments.',
  },
  { name: 'Refunds', description: 'Refunds of captured /v1/ payments (bearer API).' },
  { name: 'Tokens', description: 'Card tokens to pay with instead of card details (bearer API); the number and CVC are never stored.' },
  { name: 'Checkout', description: 'Hosted checkout sessions (bearer API): the customer pays on the page at the session url.' },
  {
    name: 'Webhook endpoints',
    description: 'URLs that receive the JSON events of a merchant, each with its own signing secret (bearer API).',
  },
  {
    name: 'Events',
    description:
      'Every event a merchant can hear about, as the webhooks carry it (bearer API). data.object tells the kind of object: payment, refund, chargeback, s2s_transaction, checkout.session or settlement.',
  },
  {
    name: 'Sandbox control',
    description:
      "The control API under /_sandbox (the CLI and the dashboard use it). Its guard: the Host must be a loopback name (or --public-url's, or an --allowed-host); the caller must be on loopback, or send the --control-token as a bearer token; a state-changing request a browser sends must come from the sandbox's own origin (Sec-Fetch-Site same-origin, or a matching Origin); and its body must be Content-Type: application/json, or absent altogether (no Content-Type, Content-Length 0): operations without a request body, or with an optional one, may be sent without one. Any other Content-Type (an HTML form, text/plain) is 400 unsupported_content_type; a method a path does not take is 405 with Allow.",
  },
  {
    name: 'Dashboard',
    description: 'The HTML dashboard at /_sandbox/, behind the same guard as the control API; its forms carry a CSRF token.',
  },
  {
    name: 'Pages',
    description:
      "The customer's pages: authentication (3-D Secure, bank, UPI, QR) and hosted checkout, reached through the links the API answers with.",
  },
  { name: 'Assets', description: 'The stylesheet, script and icon of the pages.' },
  { name: 'Meta', description: 'This document.' },
  {
    name: 'Webhooks',
    description: 'What the sandbox POSTs to merchants: the JSON events (spec §6.2 envelope) and the S2S form webhook (spec §6.1).',
  },
];
