// One webhook delivery in the dashboard: what it is, every attempt with the request exactly as
// sent (headers and body) and the response excerpt (with the signature diagnosis of what that
// attempt sent when the handler refused it with 400, 401 or 403, shown in full once per cause),
// the Replay button, and the replays and other deliveries of the same event with their latest
// answer. Below the button is the live fragment.
import type { SignatureDiagnosis } from '../../signatures/findings.js';
import type { DeliveryAttempt } from '../../store/deliveries-repo.js';
import type { DeliveryRow } from '../../services/dashboard/rows.js';
import { Status, when } from './cells.js';
import { DashboardShell } from './page.js';

/** How much of a response body the page shows (the attempt log keeps 16 KiB). */
const RESPONSE_EXCERPT_CHARS = 2000;

/** The facts of a delivery the page shows (the control API's delivery view). */
export interface DeliveryFacts {
  id: string;
  event_id: string;
  event: string;
  url: string;
  merchant_id: string;
  status: string;
  manual: boolean;
  attempts: number;
  next_attempt_at: string | null;
  content_type: string;
  request: { headers: Record<string, string>; body: string; sent: boolean; note: string };
}

const headerText = (headers: Record<string, string> | null) =>
  headers
    ? Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join('\n')
    : '';

/** What a refused attempt's signature check found; `sameAs` names the earlier attempt whose check found the same. */
interface RefusalView {
  diagnosis: SignatureDiagnosis;
  sameAs?: number;
}

/** The diagnosis itself: the cause's one line, and what to do when the signature is right. */
function Diagnosis(props: { diagnosis: SignatureDiagnosis }) {
  const { valid, message } = props.diagnosis;
  return (
    <>
      <span class="diagnosis">{message}</span>
      {valid
        ? '. So the handler computes something else: run sandbox verify with the headers, raw body and secret it had, and it says what differs.'
        : ''}
    </>
  );
}

/**
 * Why the handler may have refused the attempt (it answered 400, 401 or 403): the signature diagnosis
 * of what this attempt sent. A cause an earlier attempt's check already explained is one line naming
 * that attempt, with this attempt's own diagnosis folded under it.
 */
function Refusal(props: { status: number | null; attempt: number; refusal: RefusalView }) {
  const { diagnosis, sameAs } = props.refusal;
  const intro = `Signature check of what was sent (the handler answered ${props.status}): `;
  if (sameAs === undefined)
    return (
      <div class="refusal" data-cause={diagnosis.cause}>
        <p>
          {intro}
          <code>{diagnosis.cause}</code>, <Diagnosis diagnosis={diagnosis} />
        </p>
      </div>
    );
  return (
    <div class="refusal" data-cause={diagnosis.cause} data-same-as={String(sameAs)}>
      <p>
        {intro}
        <code>{diagnosis.cause}</code>, as for attempt {sameAs}.
      </p>
      <details>
        <summary>The diagnosis of attempt {props.attempt}</summary>
        <p>
          <Diagnosis diagnosis={diagnosis} />
        </p>
      </details>
    </div>
  );
}

function Attempt(props: { attempt: DeliveryAttempt; refusal?: RefusalView | undefined }) {
  const a = props.attempt;
  const answer = a.responseStatus !== null ? `HTTP ${a.responseStatus}` : `no answer: ${a.errorKind ?? 'error'}`;
  return (
    <article class="attempt" id={`attempt-${a.attempt}`} data-attempt={String(a.attempt)}>
      <h3>
        Attempt {a.attempt} · {when(a.startedAt)} · {answer}
        {a.latencyMs !== null ? ` · ${Math.round(a.latencyMs)} ms` : ''}
        {a.fault ? ` · injected fault: ${a.fault}` : ''}
      </h3>
      {a.errorMessage ? <p class="hint">{a.errorMessage}</p> : null}
      {props.refusal ? <Refusal status={a.responseStatus} attempt={a.attempt} refusal={props.refusal} /> : null}
      <details>
        <summary>Request headers and body</summary>
        <pre>{headerText(a.requestHeaders)}</pre>
        <pre>{a.requestBody}</pre>
      </details>
      <div>Response{a.responseHeaders ? '' : ' (none)'}</div>
      {a.responseHeaders ? <pre>{headerText(a.responseHeaders)}</pre> : null}
      {a.responseBody !== null ? <pre class="response">{a.responseBody.slice(0, RESPONSE_EXCERPT_CHARS)}</pre> : null}
    </article>
  );
}

/** Each refused attempt's diagnosis, and for a cause an earlier attempt already had, that attempt's number. */
function refusalViews(
  attempts: DeliveryAttempt[],
  refusals: ReadonlyMap<number, SignatureDiagnosis | undefined>,
): Map<number, RefusalView> {
  const firstOfCause = new Map<string, number>();
  const views = new Map<number, RefusalView>();
  for (const a of attempts) {
    const diagnosis = refusals.get(a.attempt);
    if (!diagnosis) continue;
    views.set(a.attempt, { diagnosis, sameAs: firstOfCause.get(diagnosis.cause) });
    if (!firstOfCause.has(diagnosis.cause)) firstOfCause.set(diagnosis.cause, a.attempt);
  }
  return views;
}

/** The replays and other deliveries of the event, with their latest answer. */
function Siblings(props: { siblings: DeliveryRow[] }) {
  const { siblings } = props;
  return siblings.length === 0 ? (
    <p class="hint">None yet: Replay sends this event again, and the new delivery shows up here with its attempt.</p>
  ) : (
    <section class="table-scroll" tabindex={0} aria-labelledby="replays">
      <table class="siblings">
        <thead>
          <tr>
            {['Delivery', 'URL', 'Status', 'Attempts', 'Last answer', 'Created (sandbox time)'].map((h) => (
              <th scope="col">{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {siblings.map((s) => (
            <tr data-id={s.id}>
              <td class="id">
                <a href={`/_sandbox/dashboard/deliveries/${encodeURIComponent(s.id)}`}>{s.id}</a>
                {s.manual ? ' (replay)' : ''}
              </td>
              <td class="id">{s.url}</td>
              <td>
                <Status text={s.status} />
              </td>
              <td class="num">{s.attempts}</td>
              <td>
                {s.lastStatus !== null ? `HTTP ${s.lastStatus}` : ''}
                {s.lastError ? ` ${s.lastError}` : ''}
              </td>
              <td>{when(s.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The live part: status, attempts and the other deliveries of the event. */
export function DeliveryFragment(props: {
  delivery: DeliveryFacts;
  attempts: DeliveryAttempt[];
  /** The signature diagnosis of each attempt the handler answered 400, 401 or 403, by attempt number. */
  refusals: ReadonlyMap<number, SignatureDiagnosis | undefined>;
  siblings: DeliveryRow[];
}) {
  const { delivery: d, attempts, siblings } = props;
  const refusals = refusalViews(attempts, props.refusals);
  return (
    <>
      <p>
        <Status text={d.status} /> after {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
        {d.next_attempt_at ? ` · next attempt at ${d.next_attempt_at.replace('T', ' ').slice(0, 19)}` : ''}
      </p>
      <div class="attempts">
        {attempts.length === 0 ? (
          <>
            <p class="hint">Not tried yet. {d.request.note}:</p>
            <pre>{headerText(d.request.headers)}</pre>
            <pre>{d.request.body}</pre>
          </>
        ) : (
          attempts.map((a) => <Attempt attempt={a} refusal={refusals.get(a.attempt)} />)
        )}
      </div>
      <h2 id="replays">Replays and other deliveries of {d.event_id}</h2>
      <Siblings siblings={siblings} />
    </>
  );
}

/** The whole delivery page. */
export function DeliveryPage(props: {
  delivery: DeliveryFacts;
  attempts: DeliveryAttempt[];
  refusals: ReadonlyMap<number, SignatureDiagnosis | undefined>;
  siblings: DeliveryRow[];
  csrf: string;
  now: number;
}) {
  const d = props.delivery;
  const path = `/_sandbox/dashboard/deliveries/${encodeURIComponent(d.id)}`;
  return (
    <DashboardShell title={`Delivery ${d.id} · paysandbox`} now={props.now}>
      <p>
        <a href="/_sandbox/?tab=deliveries">« Webhook deliveries</a>
      </p>
      <section class="detail">
        <h2>
          Delivery <code>{d.id}</code>
          {d.manual ? ' (replay)' : ''}
        </h2>
        <dl class="facts">
          <dt>Event</dt>
          <dd>
            {d.event} <code>{d.event_id}</code> <a href={`/_sandbox/?tab=events&q=${encodeURIComponent(d.event_id)}`}>event</a>
          </dd>
          <dt>URL</dt>
          <dd>
            <code>{d.url}</code>
          </dd>
          <dt>Content type</dt>
          <dd>{d.content_type}</dd>
          <dt>Merchant</dt>
          <dd>
            <code>{d.merchant_id}</code>
          </dd>
        </dl>
        <form method="post" action={`${path}/replay`}>
          <input type="hidden" name="csrf" value={props.csrf} />
          <button class="primary" type="submit">
            Replay
          </button>{' '}
          <span class="hint">
            Sends the same event (same id, same body, fresh signature) again as a new delivery, tried once; it appears under Replays below.
          </span>
        </form>
      </section>
      <section id="delivery" data-live-src={`${path}/fragment`} aria-live="polite">
        <DeliveryFragment delivery={d} attempts={props.attempts} refusals={props.refusals} siblings={props.siblings} />
      </section>
    </DashboardShell>
  );
}
