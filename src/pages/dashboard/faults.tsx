// The dashboard's Faults page: the fault rules in force (webhook and API, docs/api-faults.md) and
// the API faults injected lately, newest first. The live fragment refreshes on every injected
// fault (the activity bus's fault.injected). Every value goes through hono/jsx, so paths are escaped.
import type { Child } from 'hono/jsx';
import type { InjectedFault } from '../../faults/injector.js';
import { FAULT_SOURCE_LABELS } from '../../domain/vocabularies.js';
import type { FaultRuleView } from '../../views/fault-rule.js';
import { when } from './cells.js';
import { DashboardShell } from './page.js';

function Table(props: { label: string; heads: string[]; empty: string; children: Child[] }) {
  return (
    <section class="table-scroll" tabindex={0} aria-label={props.label}>
      <table data-list={props.label}>
        <thead>
          <tr>
            {props.heads.map((h) => (
              <th scope="col">{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.children.length === 0 ? (
            <tr>
              <td class="empty" colspan={props.heads.length}>
                {props.empty}
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

/** The live part: the rules and the injected faults. */
export function FaultsFragment(props: { seed: number; rules: FaultRuleView[]; injected: readonly InjectedFault[] }) {
  return (
    <>
      <h2 id="injected">API faults injected lately</h2>
      <Table
        label="injected API faults"
        heads={['When (sandbox time)', 'Request', 'Fault', 'From', 'Request id']}
        empty="None yet: send X-Sandbox-Fault on a request, or set an API fault rule."
      >
        {props.injected.map((f) => (
          <tr data-request-id={f.requestId}>
            <td>{when(f.at)}</td>
            <td class="id">
              {f.method} {f.path}
            </td>
            <td>
              <span class="status bad">{f.fault}</span>
            </td>
            <td class="id">{f.origin === 'header' ? 'X-Sandbox-Fault header' : `rule ${f.origin}`}</td>
            <td class="id">{f.requestId}</td>
          </tr>
        ))}
      </Table>
      <h2 id="rules">Fault rules in force (seed {props.seed})</h2>
      <Table label="fault rules" heads={['Rule', 'Spec', 'Set by']} empty="No fault rules: sandbox faults set adds some.">
        {props.rules.map((r) => (
          <tr data-id={r.id}>
            <td class="id">{r.id}</td>
            <td class="id">{r.spec}</td>
            <td>{FAULT_SOURCE_LABELS[r.source]}</td>
          </tr>
        ))}
      </Table>
    </>
  );
}

/** The whole Faults page. */
export function FaultsPage(props: { seed: number; rules: FaultRuleView[]; injected: readonly InjectedFault[]; now: number }) {
  return (
    <DashboardShell title="Faults · paysandbox" now={props.now}>
      <p>
        <a href="/_sandbox/">« Dashboard</a>
      </p>
      <p class="hint">
        Webhook and API faults (docs/api-faults.md). Every injected API fault is also in the request log, marked [fault: …].
      </p>
      <section id="faults" data-live-src="/_sandbox/dashboard/faults/fragment" aria-live="polite">
        <FaultsFragment {...props} />
      </section>
    </DashboardShell>
  );
}
