// A payment's timeline drawn as a sequence diagram: four lanes (the customer's browser, the
// merchant's server, the sandbox, the merchant's webhook handler) and, in order, one step per
// entry: a request and its answer, a state change (a note on the sandbox's lane), a webhook attempt
// and the handler's answer. Plain HTML and CSS (sequence-css.ts): each step is a <details> whose
// summary is its arrows and whose body is what it carried (sequence-details.tsx), so it opens
// without JavaScript, and a screen reader reads each arrow as "from, to: what". Every text goes
// through hono/jsx, so what a request carried is shown, never run.
import type { TimelineItemView, TimelineView } from '../../views/timeline.js';
import { StepDetail } from './sequence-details.js';

/** The lanes, left to right, with the name each shows. */
export const LANES = [
  ['browser', "Customer's browser"],
  ['merchant', "Merchant's server"],
  ['sandbox', 'Sandbox'],
  ['handler', 'Webhook handler'],
] as const;

const laneNames: Record<string, string> = Object.fromEntries(LANES);
const laneIndex = (lane: string) =>
  Math.max(
    0,
    LANES.findIndex(([name]) => name === lane),
  );

/** One arrow of a step: between two lanes (the same lane for a note), a call or an answer. */
interface Arrow {
  from: string;
  to: string;
  label: string;
  kind: 'call' | 'answer' | 'note';
  /** An answer that refused or failed. */
  bad?: boolean;
}

/** A page's unguessable token in a path, shortened so the arrow stays readable (the detail has it whole). */
const shortPath = (path: string) => path.replace(/\/[A-Za-z0-9_-]{43}(?=\/|$)/, '/…');

/** The arrows one timeline entry draws. */
export function arrowsOf(item: TimelineItemView): Arrow[] {
  if (item.kind === 'request') {
    const r = item.request;
    const what = r.surface === 'control' ? 'control API: ' : '';
    return [
      { from: item.from, to: item.to, label: `${what}${r.method} ${shortPath(r.path)}`, kind: 'call' },
      { from: item.to, to: item.from, label: `${r.status}${r.fault ? ` (fault ${r.fault})` : ''}`, kind: 'answer', bad: r.status >= 400 },
    ];
  }
  if (item.kind === 'attempt') {
    const a = item.attempt;
    const answer = a.response_status !== null ? `HTTP ${a.response_status}` : `no answer (${a.error_kind ?? 'error'})`;
    return [
      {
        from: item.from,
        to: item.to,
        label: `${item.delivery.event} attempt ${a.number}${item.delivery.manual ? ' (replay)' : ''}`,
        kind: 'call',
      },
      { from: item.to, to: item.from, label: answer, kind: 'answer', bad: a.response_status === null || a.response_status >= 300 },
    ];
  }
  // A state change, and any entry a later sandbox adds: its one line, between its lanes.
  const entry = item as { from: string; to: string; title: string };
  return [{ from: entry.from, to: entry.to, label: entry.title, kind: entry.from === entry.to ? 'note' : 'call' }];
}

/** One arrow: a line from lane to lane with its label above, and the lanes in words for a screen reader. */
function ArrowLine(props: { arrow: Arrow }) {
  const { from, to, label, kind, bad } = props.arrow;
  const [a, b] = [laneIndex(from), laneIndex(to)];
  // A note sits on its lane with a lane of room either side; an arrow spans the lanes it joins.
  const start = kind === 'note' ? Math.max(0, a - 1) : Math.min(a, b);
  const span = kind === 'note' ? Math.min(3, LANES.length - start) : Math.abs(a - b) + 1;
  const direction = kind === 'note' ? '' : b > a ? ' right' : ' left';
  const who = kind === 'note' ? `${laneNames[from] ?? from}: ` : `${laneNames[from] ?? from} to ${laneNames[to] ?? to}: `;
  return (
    <span class={`arrow ${kind}${direction} c${start + 1} s${span}${bad ? ' bad' : ''}`} data-from={from} data-to={to}>
      <span class="sr">{who}</span>
      <span class="label">{label}</span>
    </span>
  );
}

/** The anchor of a step: a request's own id (a change's cause links to it), else its place. */
const stepId = (item: TimelineItemView, index: number) => (item.kind === 'request' ? item.request.id : `step-${index + 1}`);

/** The diagram: the lanes' names and every step, oldest first. */
export function SequenceDiagram(props: { timeline: TimelineView }) {
  const { timeline } = props;
  return (
    <>
      <div class="lanes" aria-hidden="true">
        {LANES.map(([name, text]) => (
          <span data-lane={name}>{text}</span>
        ))}
      </div>
      {timeline.items.length === 0 ? (
        <p class="hint">Nothing recorded yet: the request journal holds no request about this payment.</p>
      ) : (
        <ol class="steps">
          {timeline.items.map((item, index) => (
            <li class="step" id={stepId(item, index)} data-kind={item.kind}>
              <details>
                <summary>
                  {arrowsOf(item).map((arrow) => (
                    <ArrowLine arrow={arrow} />
                  ))}
                </summary>
                <StepDetail item={item} />
              </details>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
