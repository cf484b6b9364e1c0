// The pieces every dashboard table is made of: the context its forms need, the sandbox-time
// format, the status pill, the Approve / Decline form, the links to a row's events and deliveries,
// and the table frame with its empty state. Every value goes through hono/jsx, so it is escaped.
import type { Child } from 'hono/jsx';
import { iso } from '../../views/time.js';
import type { DashboardTab } from '../../domain/vocabularies.js';
/** What every table needs besides its rows: the CSRF token of its forms and the page URL to come back to. */
export interface TableContext {
  csrf: string;
  /** The full page URL (path and query) a form redirects back to. */
  here: string;
  /** The page URL of the next (older) page, when there is one. */
  olderHref: string | null;
  /** The page URL of the newest page of the same filters, when this is not it. */
  newestHref: string | null;
}

/** Sandbox-clock ms as UTC "YYYY-MM-DD HH:MM:SS". */
export const when = (ms: number) => iso(ms).replace('T', ' ').slice(0, 19);

const GOOD = new Set([
  'Test Approved',
  'authorized',
  'captured',
  'complete',
  'succeeded',
  'Refunded',
  'Partially Refunded',
  'refunded',
  'partially_refunded',
  'won',
  'paid',
]);
const WAITING = new Set(['Pending', 'Request Processed', 'processing', 'requires_action', 'open', 'pending', 'created']);

/** A coloured status pill. */
export function Status(props: { text: string }) {
  const tone = GOOD.has(props.text) ? 'ok' : WAITING.has(props.text) ? 'wait' : 'bad';
  return <span class={`status ${tone}`}>{props.text}</span>;
}

/** Approve / Decline of an open authentication (POST, with the page's CSRF token). */
export function AuthButtons(props: { subject: 'transaction' | 'payment'; id: string; ctx: TableContext }) {
  return (
    <form class="inline" method="post" action="/_sandbox/dashboard/authenticate">
      <input type="hidden" name="csrf" value={props.ctx.csrf} />
      <input type="hidden" name="subject" value={props.subject} />
      <input type="hidden" name="id" value={props.id} />
      <input type="hidden" name="back" value={props.ctx.here} />
      <button class="approve" type="submit" name="outcome" value="approve">
        Approve
      </button>
      <button class="decline" type="submit" name="outcome" value="decline">
        Decline
      </button>
    </form>
  );
}

export const deliveriesOf = (id: string) => `/_sandbox/?tab=deliveries&q=${encodeURIComponent(id)}`;
export const eventsOf = (id: string) => `/_sandbox/?tab=events&q=${encodeURIComponent(id)}`;
/** The dashboard page of a payment (S2S transID or pay_ id): its timeline drawn as a sequence diagram. */
export const paymentOf = (id: string) => `/_sandbox/dashboard/payments/${encodeURIComponent(id)}`;

/** True for the id of a payment: a /v1/ pay_ id or a numeric S2S transID. */
export const isPaymentId = (id: string) => id.startsWith('pay_') || /^\d+$/.test(id);

/** A payment's id as a link to its page; any other id as plain text. */
export function PaymentId(props: { id: string }) {
  return isPaymentId(props.id) ? <a href={paymentOf(props.id)}>{props.id}</a> : <span>{props.id}</span>;
}

/** A tab's table: its heads, and a row saying so when there is nothing to show. */
export function Table(props: { tab: DashboardTab; heads: string[]; count: number; children: Child }) {
  return (
    // Focusable, so a keyboard can scroll the table sideways on a narrow screen.
    <section class="table-scroll" tabindex={0} aria-label={`${props.tab} list`}>
      <table data-tab={props.tab}>
        <thead>
          <tr>
            {props.heads.map((h) => (
              <th scope="col">{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.count === 0 ? (
            <tr>
              <td class="empty" colspan={props.heads.length}>
                Nothing here yet (or nothing matches the filters).
              </td>
            </tr>
          ) : (
            props.children
          )}
        </tbody>
      </table>
    </section>
  );
}
