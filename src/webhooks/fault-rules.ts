// The fault grammar of --faults, POST /_sandbox/faults and `sandbox faults set`:
//
//   SPEC   := RULESET (";" RULESET)*
//   RULESET:= [TARGET ":"] FAULT ("," FAULT)*
//   TARGET := "url=" URL | "endpoint=" ENDPOINT_ID          (no target: every delivery)
//   FAULT  := duplicate=N | reorder | delay=DURATION | fail-first=N | fail=P
//           | lost-ack[=N] | bad-signature | stale-timestamp
//
// e.g. "duplicate=2,delay=2s" or "url=http://127.0.0.1:3000/hook:fail-first=2;reorder".
// Parsing does not look up ENDPOINT_ID; POST /_sandbox/faults refuses one that names no endpoint.
// Pure parsing and formatting only; src/webhooks/faults.ts applies the rules.
import { formatDuration, parseDuration } from '../domain/duration.js';
import type { FaultScope } from '../store/fault-rules-repo.js';

/** One parsed rule, before it is stored. */
export interface FaultRuleSpec {
  scope: FaultScope;
  target: string;
  fault: FaultKind;
  value: string | null;
}

/** How each fault's value is read; `needs` says whether `=value` is required, optional or refused. */
const KINDS = {
  duplicate: { needs: 'required', hint: 'duplicate=N with N a whole number from 1 to 10 (extra copies of each attempt)' },
  reorder: { needs: 'none', hint: 'reorder (no value)' },
  delay: { needs: 'required', hint: 'delay=DURATION such as delay=2s or delay=1m' },
  'fail-first': { needs: 'required', hint: 'fail-first=N with N a whole number from 1 to 100' },
  fail: { needs: 'required', hint: 'fail=P with P a probability above 0 and at most 1, such as fail=0.3' },
  'lost-ack': { needs: 'optional', hint: 'lost-ack or lost-ack=N with N a whole number from 1 to 100' },
  'bad-signature': { needs: 'none', hint: 'bad-signature (no value)' },
  'stale-timestamp': { needs: 'none', hint: 'stale-timestamp (no value)' },
} as const;

/** The fault kinds, in the order the injector applies them. */
export type FaultKind = keyof typeof KINDS;

/** Every fault name, for help texts and errors. */
export const FAULT_KINDS = Object.keys(KINDS) as FaultKind[];

function wholeNumber(text: string, max: number): boolean {
  return /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= max;
}

/** Checks a fault's value; returns the normalised value or undefined when it is not acceptable. */
function checkValue(fault: FaultKind, value: string | null): string | null | undefined {
  const needs = KINDS[fault].needs;
  if (value === null) return needs === 'required' ? undefined : null;
  if (needs === 'none') return undefined;
  if (fault === 'duplicate') return wholeNumber(value, 10) ? String(Number(value)) : undefined;
  if (fault === 'fail-first' || fault === 'lost-ack') return wholeNumber(value, 100) ? String(Number(value)) : undefined;
  if (fault === 'fail') return /^(0?\.\d+|1(\.0*)?)$/.test(value) && Number(value) > 0 ? String(Number(value)) : undefined;
  const ms = parseDuration(value);
  return ms !== undefined && ms > 0 ? formatDuration(ms) : undefined;
}

const FAULT_LIST = new RegExp(`^(${FAULT_KINDS.join('|')})(=[^,]*)?(,(${FAULT_KINDS.join('|')})(=[^,]*)?)*$`);

/** Parses a fault spec; returns the rules, or the problem in words that say how to fix it. */
export function parseFaultSpec(text: string): { rules: FaultRuleSpec[] } | { problem: string } {
  const rules: FaultRuleSpec[] = [];
  const sets = text.split(';').map((part) => part.trim()).filter((part) => part !== '');
  if (sets.length === 0) return { problem: `is empty; send faults such as "duplicate=2" or "url=http://127.0.0.1:3000/hook:fail-first=2"` };
  for (const set of sets) {
    let scope: FaultScope = 'global';
    let target = '';
    let faults = set;
    const scoped = /^(url|endpoint)=(.+):([^:]+)$/.exec(set);
    if (scoped && FAULT_LIST.test(scoped[3]!)) {
      scope = scoped[1] as FaultScope;
      target = scoped[2]!;
      faults = scoped[3]!;
      if (scope === 'url' && !/^https?:\/\/[^\s/]+/.test(target)) return { problem: `names "${target}" as a URL; a url= target must be an http(s) URL such as http://127.0.0.1:3000/hook` };
    } else if (/^(url|endpoint)=/.test(set)) {
      return { problem: `"${set}" has a target but no faults after it; write TARGET:FAULT such as url=http://127.0.0.1:3000/hook:duplicate=2` };
    }
    for (const item of faults.split(',').map((part) => part.trim())) {
      const [name, ...rest] = item.split('=');
      const fault = name as FaultKind;
      if (!(fault in KINDS)) return { problem: `has an unknown fault "${name}"; use one of ${FAULT_KINDS.join(', ')}` };
      const value = checkValue(fault, rest.length ? rest.join('=') : null);
      if (value === undefined) return { problem: `has "${item}"; write ${KINDS[fault].hint}` };
      rules.push({ scope, target, fault, value });
    }
  }
  return { rules };
}

/** The rule written back in the grammar, e.g. "url=http://x/y:fail-first=2". */
export function formatFaultRule(rule: { scope: FaultScope; target: string; fault: string; value: string | null }): string {
  const fault = rule.value === null ? rule.fault : `${rule.fault}=${rule.value}`;
  return rule.scope === 'global' ? fault : `${rule.scope}=${rule.target}:${fault}`;
}
