// What one step of the sequence diagram opens onto: a request with its answer (the journal entry,
// masked as it was stored), a state change with its event and cause, or a webhook attempt with the
// handler's answer and the signature diagnosis, linked to its delivery's page. Every text goes
// through hono/jsx, so a body holding markup is shown as text.
import type { TimelineItemView } from '../../views/timeline.js';
import { deliveriesOf, eventsOf, when } from './cells.js';

type Of<K extends TimelineItemView['kind']> = Extract<TimelineItemView, { kind: K }>;

/** Sandbox time as the dashboard shows it, from an ISO time. */
const at = (iso: string) => when(Date.parse(iso));

const headerText = (headers: Record<string, string>) =>
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');

function RequestDetail(props: { item: Of<'request'> }) {
  const r = props.item.request;
  return (
    <div class="step-detail">
      <dl class="facts">
        <dt>Request</dt>
        <dd>
          <code>{r.id}</code> · {at(r.at)} sandbox time · {Math.round(r.duration_ms)} ms
        </dd>
        <dt>Path</dt>
        <dd>
          <code>
            {r.method} {r.path}
            {r.query ? `?${r.query}` : ''}
          </code>
        </dd>
        {r.merchant_id ? (
          <>
            <dt>Merchant</dt>
            <dd>
              <code>{r.merchant_id}</code>
            </dd>
          </>
        ) : null}
        {r.idempotency_key ? (
          <>
            <dt>Idempotency-Key</dt>
            <dd>
              <code>{r.idempotency_key}</code>
            </dd>
          </>
        ) : null}
        {r.script ? (
          <>
            <dt>Outcome forced by</dt>
            <dd>{r.script}</dd>
          </>
        ) : null}
        {r.fault ? (
          <>
            <dt>API fault</dt>
            <dd>{r.fault}</dd>
          </>
        ) : null}
        {r.traceparent ? (
          <>
            <dt>traceparent</dt>
            <dd>
              <code>{r.traceparent}</code>
            </dd>
          </>
        ) : null}
      </dl>
      <p>Request headers and body (masked)</p>
      <pre>{headerText(r.request.headers)}</pre>
      {r.request.body !== null ? <pre class="request-body">{r.request.body}</pre> : null}
      <p>
        Answer {r.status}
        {r.response.type ? ` (${r.response.type})` : ''}
      </p>
      {r.response.body !== null ? <pre class="response-body">{r.response.body}</pre> : null}
    </div>
  );
}

function StateDetail(props: { item: Of<'state'> }) {
  const { item } = props;
  return (
    <div class="step-detail">
      <dl class="facts">
        <dt>Changed</dt>
        <dd>
          <code>{item.object_id}</code>
          {item.status ? ` is now ${item.status}` : ''} · {at(item.at)} sandbox time
        </dd>
        <dt>Event</dt>
        <dd>
          {item.event ? (
            <>
              <a href={eventsOf(item.event.id)}>
                {item.event.type} <code>{item.event.id}</code>
              </a>{' '}
              · <a href={deliveriesOf(item.event.id)}>its deliveries</a>
            </>
          ) : (
            'none (the change sent no event)'
          )}
        </dd>
        <dt>Cause</dt>
        <dd>
          {item.cause.text}
          {item.cause.request_id ? (
            <>
              {' '}
              · <a href={`#${item.cause.request_id}`}>the request</a>
            </>
          ) : null}
        </dd>
      </dl>
    </div>
  );
}

function AttemptDetail(props: { item: Of<'attempt'> }) {
  const { delivery: d, attempt: a, signature_diagnosis: diagnosis } = props.item;
  return (
    <div class="step-detail">
      <dl class="facts">
        <dt>Delivery</dt>
        <dd>
          <a href={`/_sandbox/dashboard/deliveries/${encodeURIComponent(d.id)}#attempt-${a.number}`}>
            <code>{d.id}</code>, attempt {a.number}
          </a>
          {d.manual ? ' (a replay or a trigger sent by hand)' : ''} · {d.status}
        </dd>
        <dt>To</dt>
        <dd>
          <code>{d.url}</code>
        </dd>
        <dt>Answer</dt>
        <dd>
          {a.response_status !== null ? `HTTP ${a.response_status}` : `no answer: ${a.error_kind ?? 'error'}`}
          {a.latency_ms !== null ? ` after ${Math.round(a.latency_ms)} ms` : ''} · {at(props.item.at)} sandbox time
          {a.error ? ` · ${a.error}` : ''}
        </dd>
        {a.fault ? (
          <>
            <dt>Injected fault</dt>
            <dd>{a.fault}</dd>
          </>
        ) : null}
        {a.traceparent ? (
          <>
            <dt>traceparent</dt>
            <dd>
              <code>{a.traceparent}</code>
            </dd>
          </>
        ) : null}
        {diagnosis ? (
          <>
            <dt>Signature check</dt>
            <dd class="refusal" data-cause={diagnosis.cause}>
              <code>{diagnosis.cause}</code>: {diagnosis.message}
            </dd>
          </>
        ) : null}
      </dl>
      {a.response_excerpt !== null ? <pre class="response-body">{a.response_excerpt}</pre> : null}
    </div>
  );
}

/** The body of one step; an entry of a kind this page does not know shows its one line. */
export function StepDetail(props: { item: TimelineItemView }) {
  const { item } = props;
  if (item.kind === 'request') return <RequestDetail item={item} />;
  if (item.kind === 'state') return <StateDetail item={item} />;
  if (item.kind === 'attempt') return <AttemptDetail item={item} />;
  const other = item as { title?: string; at?: string };
  return (
    <div class="step-detail">
      <p>
        {other.title ?? ''} {other.at ? `· ${at(other.at)} sandbox time` : ''}
      </p>
    </div>
  );
}
