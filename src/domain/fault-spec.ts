// The one fault grammar of --faults, POST /_sandbox/faults, `sandbox faults set` and scenario
// files, for webhook faults and API faults alike (docs/api-faults.md has the table):
//
//   SPEC   := RULESET (";" RULESET)*
//   RULESET:= (FILTER ":")* FAULT ("," FAULT)* ["," "p=" P]
//   FILTER := "url=" URL | "endpoint=" ENDPOINT_ID      (webhook faults only)
//           | "route=" [METHOD] PATH                    (API faults only; * in PATH matches any run of characters)
//           | "merchant=" MERCHANT_ID                   (both)
//   FAULT  := webhook: duplicate=N | reorder | delay=DURATION | fail-first=N | fail=P
//                      | lost-ack[=N] | bad-signature | stale-timestamp
//           | API:     latency=DURATION | status=N | reset | timeout | lost-answer
//   p=P    := the chance (0 < P <= 1) that the ruleset's API faults fire on a matching request
//
// e.g. "duplicate=2,delay=2s", "url=http://127.0.0.1:3000/hook:fail-first=2;reorder" or
// "merchant=mer_x:route=POST /v1/payments:status=503,p=0.2".
// Parsing does not look up ENDPOINT_ID; POST /_sandbox/faults refuses one that names no endpoint.
// Pure parsing and formatting only (config checks --faults with it); src/faults/injector.ts applies the rules.
import { formatDuration, parseDuration } from './duration.js';
import { API_FAULT_KINDS, checkApiFault, conflictOf, isApiFault, parseRoutePattern, type ApiFault } from './api-faults.js';
import type { FaultScope } from './vocabularies.js';

/** One parsed rule, before it is stored. */
export interface FaultRuleSpec {
  scope: FaultScope;
  target: string;
  /** '' for every merchant. */
  merchant: string;
  fault: FaultKind | (typeof API_FAULT_KINDS)[number];
  value: string | null;
  probability: number | null;
}

/** How each webhook fault's value is read; `needs` says whether `=value` is required, optional or refused. */
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

/** The webhook fault kinds, in the order the injector applies them. */
export type FaultKind = keyof typeof KINDS;

/** Every webhook fault name, for help texts and errors. */
export const FAULT_KINDS = Object.keys(KINDS) as FaultKind[];

/** Every fault name of the grammar, webhook faults first. */
const ALL_FAULTS: string[] = [...FAULT_KINDS, ...API_FAULT_KINDS];

function wholeNumber(text: string, max: number): boolean {
  return /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= max;
}

/** A probability above 0 and at most 1, as fail=P and p=P take it. */
function probability(text: string): number | undefined {
  return /^(0?\.\d+|1(\.0*)?)$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
}

/** Checks a webhook fault's value; returns the normalised value or undefined when it is not acceptable. */
function checkValue(fault: FaultKind, value: string | null): string | null | undefined {
  const needs = KINDS[fault].needs;
  if (value === null) return needs === 'required' ? undefined : null;
  if (needs === 'none') return undefined;
  if (fault === 'duplicate') return wholeNumber(value, 10) ? String(Number(value)) : undefined;
  if (fault === 'fail-first' || fault === 'lost-ack') return wholeNumber(value, 100) ? String(Number(value)) : undefined;
  if (fault === 'fail') return probability(value) === undefined ? undefined : String(Number(value));
  const ms = parseDuration(value);
  return ms !== undefined && ms > 0 ? formatDuration(ms) : undefined;
}

const FAULT_ITEM = `(${[...ALL_FAULTS, 'p'].join('|')})(=[^,]*)?`;
const FAULT_LIST = new RegExp(`^${FAULT_ITEM}(,${FAULT_ITEM})*$`);
const FILTER = /^(url|endpoint|route|merchant)=(.+)$/s;

/** A filter value as errors quote it: cut to 80 characters, so a 10,000-character one is not echoed whole. */
function quoted(value: string): string {
  return value.length <= 80 ? value : `${value.slice(0, 60)}...${value.slice(-17)}`;
}

/** The filters of one ruleset, read from the text before its faults. */
interface Filters {
  scope: FaultScope;
  target: string;
  merchant: string;
}

/** Reads "url=...:merchant=..." (each filter once; url, endpoint and route exclude each other). */
function readFilters(head: string): Filters | { problem: string } {
  const filters: Filters = { scope: 'global', target: '', merchant: '' };
  // A URL holds colons of its own: split only where the next filter name follows.
  for (const part of head.split(/:(?=(?:url|endpoint|route|merchant)=)/)) {
    const match = FILTER.exec(part);
    if (!match)
      return {
        problem: `has "${part}" where a filter belongs; filters are url=URL, endpoint=ID, route=[METHOD] PATH or merchant=ID, each followed by ":"`,
      };
    const name = match[1] as 'url' | 'endpoint' | 'route' | 'merchant';
    const value = match[2];
    if (name === 'merchant') {
      if (filters.merchant) return { problem: `names merchant= twice in "${head}"; give one merchant per ruleset` };
      if (!/^[A-Za-z0-9_-]{1,100}$/.test(value))
        return { problem: `names merchant "${value}"; a merchant= filter is a merchant id such as mer_sandbox` };
      filters.merchant = value;
      continue;
    }
    if (filters.scope !== 'global')
      return { problem: `combines ${filters.scope}= and ${name}=; a ruleset takes one of url=, endpoint= (webhooks) or route= (API)` };
    if (name === 'url' && !/^https?:\/\/[^\s/]+/.test(value))
      return { problem: `names "${value}" as a URL; a url= target must be an http(s) URL such as http://127.0.0.1:3000/hook` };
    if (name === 'route') {
      const route = parseRoutePattern(value);
      if ('problem' in route) return { problem: `has route "${quoted(value)}"; ${route.problem}` };
      filters.target = route.pattern.text;
    } else {
      filters.target = value;
    }
    filters.scope = name;
  }
  return filters;
}

/** Parses a fault spec; returns the rules, or the problem in words that say how to fix it. */
export function parseFaultSpec(text: string): { rules: FaultRuleSpec[] } | { problem: string } {
  const rules: FaultRuleSpec[] = [];
  const sets = text
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (sets.length === 0)
    return {
      problem: `is empty; send faults such as "duplicate=2", "url=http://127.0.0.1:3000/hook:fail-first=2" or "route=POST /v1/payments:status=503,p=0.2"`,
    };
  for (const set of sets) {
    let filters: Filters = { scope: 'global', target: '', merchant: '' };
    let faults = set;
    const colon = set.lastIndexOf(':');
    if (colon > 0 && FAULT_LIST.test(set.slice(colon + 1).trim())) {
      const read = readFilters(set.slice(0, colon));
      if ('problem' in read) return read;
      filters = read;
      faults = set.slice(colon + 1).trim();
    } else if (/^(url|endpoint|route|merchant)=/.test(set)) {
      return {
        problem: `"${set}" has a target but no faults after it; write TARGET:FAULT such as url=http://127.0.0.1:3000/hook:duplicate=2 or route=POST /v1/payments:status=503`,
      };
    }
    const parsed = parseFaults(faults, filters);
    if ('problem' in parsed) return parsed;
    rules.push(...parsed.rules);
  }
  return { rules };
}

/** Parses the faults of one ruleset under its filters. */
function parseFaults(faults: string, filters: Filters): { rules: FaultRuleSpec[] } | { problem: string } {
  const rules: FaultRuleSpec[] = [];
  let chance: number | null = null;
  for (const item of faults.split(',').map((part) => part.trim())) {
    const [name, ...rest] = item.split('=');
    const value = rest.length ? rest.join('=') : null;
    if (name === 'p') {
      chance = value === null ? null : (probability(value) ?? null);
      if (chance === null) return { problem: `has "${item}"; write p=P with P above 0 and at most 1, such as p=0.2` };
      continue;
    }
    if (isApiFault(name)) {
      const checked = checkApiFault(name, value);
      if ('hint' in checked) return { problem: `has "${item}"; write ${checked.hint}` };
      rules.push({ ...filters, fault: name, value: checked.value, probability: null });
      continue;
    }
    if (!(name in KINDS)) return { problem: `has an unknown fault "${name}"; use one of ${ALL_FAULTS.join(', ')} (docs/api-faults.md)` };
    const fault = name as FaultKind;
    const checked = checkValue(fault, value);
    if (checked === undefined) return { problem: `has "${item}"; write ${KINDS[fault].hint}` };
    rules.push({ ...filters, fault, value: checked, probability: null });
  }
  const api = rules.filter((rule) => isApiFault(rule.fault));
  const webhook = rules.filter((rule) => !isApiFault(rule.fault));
  if (webhook.length > 0 && filters.scope === 'route')
    return {
      problem: `has route= with the webhook fault ${webhook[0].fault}; route= filters API faults (${API_FAULT_KINDS.join(', ')}); set webhook faults in their own ruleset after ";"`,
    };
  if (api.length > 0 && (filters.scope === 'url' || filters.scope === 'endpoint'))
    return {
      problem: `has ${filters.scope}= with the API fault ${api[0].fault}; ${filters.scope}= filters webhook deliveries, use route=[METHOD] PATH for API faults`,
    };
  if (chance !== null && webhook.length > 0)
    return {
      problem: `has p= with the webhook fault ${webhook[0].fault}; p= is the chance of API faults, webhooks take fail=P; set them in separate rulesets after ";"`,
    };
  if (chance !== null && api.length === 0) return { problem: 'has p= but no API fault to apply it to; write e.g. status=503,p=0.2' };
  const conflict = conflictOf(api.map((rule): ApiFault => ({ kind: rule.fault as ApiFault['kind'], value: rule.value })));
  if (conflict) return { problem: conflict };
  return { rules: rules.map((rule) => (isApiFault(rule.fault) ? { ...rule, probability: chance } : rule)) };
}

/** The rule written back in the grammar, e.g. "url=http://x/y:fail-first=2" or "route=POST /v1/payments:status=503,p=0.2". */
export function formatFaultRule(rule: {
  scope: FaultScope;
  target: string;
  merchant: string;
  fault: string;
  value: string | null;
  probability: number | null;
}): string {
  const fault = rule.value === null ? rule.fault : `${rule.fault}=${rule.value}`;
  const filters = [rule.merchant ? `merchant=${rule.merchant}:` : '', rule.scope === 'global' ? '' : `${rule.scope}=${rule.target}:`].join(
    '',
  );
  return `${filters}${fault}${rule.probability === null ? '' : `,p=${rule.probability}`}`;
}
