// A payment's page in the dashboard (/_sandbox/dashboard/payments/{id}): what the payment is, and
// its timeline drawn as a sequence diagram in the live region the dashboard's script redraws when
// anything happens; and the page of an id that names no payment. Every value goes through
// hono/jsx, so it is escaped.
import { formatDecimalMoney as money } from '../../domain/money.js';
import type { TimelineView } from '../../views/timeline.js';
import { deliveriesOf, eventsOf, paymentOf, Status, when } from './cells.js';
import { DashboardShell, listHref } from './page.js';
import { SequenceDiagram } from './sequence.js';

/** The live part: the payment's status and the diagram. */
export function PaymentFragment(props: { timeline: TimelineView }) {
  const { timeline } = props;
  const { payment } = timeline;
  return (
    <>
      <p>
        <Status text={payment.family === 's2s' ? payment.status.replace(/^\d+ /, '') : payment.status} /> · {timeline.items.length} step
        {timeline.items.length === 1 ? '' : 's'}
        {timeline.journal_complete
          ? ''
          : ' · the request journal no longer holds every request of this payment (--journal-size, --journal-age)'}
      </p>
      <SequenceDiagram timeline={timeline} />
    </>
  );
}

/** The whole page of a payment. */
export function PaymentPage(props: { timeline: TimelineView; now: number }) {
  const { payment: p } = props.timeline;
  const tab = p.family === 's2s' ? 'transactions' : 'payments';
  return (
    <DashboardShell title={`Payment ${p.id} · paysandbox`} now={props.now}>
      <p>
        <a href={listHref({ tab })}>« {p.family === 's2s' ? 'S2S transactions' : '/v1/ payments'}</a>
      </p>
      <section class="detail">
        <h2>
          Payment <code>{p.id}</code>
        </h2>
        <dl class="facts">
          <dt>Amount</dt>
          <dd>{money(p.amount, p.currency)}</dd>
          <dt>Merchant</dt>
          <dd>
            <code>{p.merchant_id}</code>
          </dd>
          <dt>Created</dt>
          <dd>{when(Date.parse(p.created_at))} sandbox time</dd>
          {p.trace_id ? (
            <>
              <dt>Trace id</dt>
              <dd>
                <code>{p.trace_id}</code>
              </dd>
            </>
          ) : null}
          <dt>More</dt>
          <dd>
            <a href={eventsOf(p.id)}>its events</a> · <a href={deliveriesOf(p.id)}>its webhook deliveries</a> ·{' '}
            <a href={`/_sandbox/payments/${encodeURIComponent(p.id)}/timeline`}>the timeline as JSON</a> ·{' '}
            <a href={`/_sandbox/requests?payment=${encodeURIComponent(p.id)}`}>its requests as JSON</a>
          </dd>
        </dl>
      </section>
      <h2 id="sequence-heading">What happened, in order</h2>
      <p class="hint">
        Each arrow is a request and its answer, a change of state, or a webhook attempt and the handler's answer; open one for what it
        carried.
      </p>
      <section
        id="sequence"
        class="sequence"
        aria-labelledby="sequence-heading"
        data-live-src={`${paymentOf(p.id)}/fragment`}
        aria-live="polite"
      >
        <PaymentFragment timeline={props.timeline} />
      </section>
    </DashboardShell>
  );
}

/** The page of an id that names no payment (404): what the page takes, and where to find one. */
export function PaymentMissingPage(props: { id: string; message: string; now: number }) {
  return (
    <DashboardShell title="No such payment · paysandbox" now={props.now}>
      <section class="detail">
        <h2>No payment {props.id}</h2>
        <p>{props.message}.</p>
        <p>
          Pick one from the <a href={listHref({ tab: 'transactions' })}>S2S transactions</a> or the{' '}
          <a href={listHref({ tab: 'payments' })}>/v1/ payments</a>: each id there opens its page. An id from an earlier run is gone after a
          reset or a restart with an in-memory database.
        </p>
      </section>
    </DashboardShell>
  );
}
