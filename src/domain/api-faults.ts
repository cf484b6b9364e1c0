// API faults: what the X-Sandbox-Fault request header and standing API fault rules do to an answer
// of /api/* or /v1/* (docs/api-faults.md). Pure parsing and matching; the middleware
// src/http/middleware/api-faults.ts applies them.
//
//   HEADER := FAULT ("," FAULT)*
//   FAULT  := latency=DURATION | status=500|502|503|504|429 | reset | timeout | lost-answer
import { formatDuration, parseDuration } from './duration.js';

/** The API fault names, in the order they are listed in errors and docs. */
export const API_FAULT_KINDS = ['latency', 'status', 'reset', 'timeout', 'lost-answer'] as const;

/** One API fault name. */
export type ApiFaultKind = (typeof API_FAULT_KINDS)[number];

/** The longest latency= accepted: a client that waits longer is rehearsing `timeout`. */
export const MAX_LATENCY_MS = 60_000;

/** The statuses status= may answer: the ones a gateway really returns under trouble. */
export const FAULT_STATUSES = [500, 502, 503, 504, 429] as const;

/** The request header that asks for faults on one request. */
export const FAULT_HEADER = 'X-Sandbox-Fault';

/** One API fault with its normalised value (null for the ones that take none). */
export interface ApiFault {
  kind: ApiFaultKind;
  value: string | null;
}

/** What `kind=value` must look like, for errors. */
const HINTS: Record<ApiFaultKind, string> = {
  latency: `latency=DURATION such as latency=2s (more than 0, at most ${formatDuration(MAX_LATENCY_MS)})`,
  status: `status=N with N one of ${FAULT_STATUSES.join(', ')}`,
  reset: 'reset (no value)',
  timeout: 'timeout (no value)',
  'lost-answer': 'lost-answer (no value)',
};

/** Whether a fault name is an API fault (the others in the one grammar are webhook faults). */
export function isApiFault(name: string): name is ApiFaultKind {
  return (API_FAULT_KINDS as readonly string[]).includes(name);
}

/** Normalises an API fault's value, or says how to write it when it is not acceptable. */
export function checkApiFault(kind: ApiFaultKind, value: string | null): { value: string | null } | { hint: string } {
  const bad = { hint: HINTS[kind] };
  if (kind === 'latency') {
    const ms = value === null ? undefined : parseDuration(value);
    return ms !== undefined && ms > 0 && ms <= MAX_LATENCY_MS ? { value: formatDuration(ms) } : bad;
  }
  if (kind === 'status') return value !== null && (FAULT_STATUSES as readonly number[]).includes(Number(value)) && /^\d{3}$/.test(value) ? { value } : bad;
  return value === null ? { value: null } : bad;
}

/** The faults that replace or withhold the answer; a request gets at most one of them. */
export const ENDING_FAULTS: readonly ApiFaultKind[] = ['status', 'reset', 'timeout', 'lost-answer'];

/** Why a list of API faults cannot apply to one request together, or undefined when it can. */
export function conflictOf(faults: readonly ApiFault[]): string | undefined {
  const kinds = faults.map((f) => f.kind);
  const repeated = kinds.find((kind, i) => kinds.indexOf(kind) !== i);
  if (repeated) return `names ${repeated} twice; give each fault once`;
  const ending = kinds.filter((kind) => ENDING_FAULTS.includes(kind));
  if (ending.length > 1) return `combines ${ending.join(' and ')}; a request can end only one way: keep one of ${ENDING_FAULTS.join(', ')} (latency= combines with any of them)`;
  return undefined;
}

/** Parses the X-Sandbox-Fault header; returns the faults, or the problem in words that say how to fix it. */
export function parseFaultHeader(text: string): { faults: ApiFault[] } | { problem: string } {
  const items = text.split(',').map((item) => item.trim());
  if (items.every((item) => item === '')) return { problem: `is empty; send faults such as "status=503" or "latency=2s,lost-answer" (${API_FAULT_KINDS.join(', ')})` };
  const faults: ApiFault[] = [];
  for (const item of items) {
    const [name, ...rest] = item.split('=');
    const kind = name!.trim().toLowerCase();
    if (!isApiFault(kind)) {
      return { problem: `has an unknown fault "${name}"; use ${API_FAULT_KINDS.map((k) => HINTS[k]).join('; ')}` };
    }
    const checked = checkApiFault(kind, rest.length ? rest.join('=').trim() : null);
    if ('hint' in checked) return { problem: `has "${item}"; write ${checked.hint}` };
    faults.push({ kind, value: checked.value });
  }
  const conflict = conflictOf(faults);
  return conflict ? { problem: conflict } : { faults };
}

/** The faults as the log and the dashboard show them, e.g. "latency=2s, lost-answer". */
export function faultLabel(faults: readonly ApiFault[]): string {
  return faults.map((f) => (f.value === null ? f.kind : `${f.kind}=${f.value}`)).join(', ');
}

/** A route filter of a standing rule: an HTTP method, a path (a * in it matches anything), or both. */
export interface RoutePattern {
  method: string | null;
  path: RegExp | null;
  /** The pattern written back, e.g. "POST /v1/payments". */
  text: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Parses "POST /v1/payments", "/v1/refunds*" or "GET"; undefined when it is neither. */
export function parseRoutePattern(text: string): RoutePattern | undefined {
  const parts = text.trim().split(/\s+/);
  let method: string | null = null;
  if (parts.length > 0 && METHODS.includes(parts[0]!.toUpperCase())) method = parts.shift()!.toUpperCase();
  if (parts.length > 1 || (method === null && parts.length === 0)) return undefined;
  const path = parts[0] ?? null;
  if (path !== null && !/^\/(api|v1)(\/|\*|$)/.test(path)) return undefined;
  const regex = path === null ? null : new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 's');
  return { method, path: regex, text: [method, path].filter((part) => part !== null).join(' ') };
}

/** How a route filter must be written, for errors. */
export const ROUTE_HINT = 'route=[METHOD] PATH such as route=POST /v1/payments or route=/v1/refunds* (PATH under /api/ or /v1/, * matches anything), or route=METHOD such as route=POST';

/** Whether a request matches a route filter. */
export function routeMatches(pattern: RoutePattern, method: string, path: string): boolean {
  return (pattern.method === null || pattern.method === method) && (pattern.path === null || pattern.path.test(path));
}
