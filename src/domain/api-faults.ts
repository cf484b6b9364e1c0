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
  if (kind === 'status')
    return value !== null && (FAULT_STATUSES as readonly number[]).includes(Number(value)) && /^\d{3}$/.test(value) ? { value } : bad;
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
  if (ending.length > 1)
    return `combines ${ending.join(' and ')}; a request can end only one way: keep one of ${ENDING_FAULTS.join(', ')} (latency= combines with any of them)`;
  return undefined;
}

/** Parses the X-Sandbox-Fault header; returns the faults, or the problem in words that say how to fix it. */
export function parseFaultHeader(text: string): { faults: ApiFault[] } | { problem: string } {
  const items = text.split(',').map((item) => item.trim());
  if (items.every((item) => item === ''))
    return { problem: `is empty; send faults such as "status=503" or "latency=2s,lost-answer" (${API_FAULT_KINDS.join(', ')})` };
  const faults: ApiFault[] = [];
  for (const item of items) {
    const [name, ...rest] = item.split('=');
    const kind = name.trim().toLowerCase();
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

/** A route filter of a standing rule: an HTTP method, a path (a * in it matches any run of characters), or both. */
export interface RoutePattern {
  method: string | null;
  /** The path split at each *: the literal pieces a matching path holds in this order; null for any path. */
  pieces: readonly string[] | null;
  /** The pattern written back, e.g. "POST /v1/payments". */
  text: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The longest route PATH a rule takes: every route of the sandbox is under 60 characters. */
export const MAX_ROUTE_PATH_CHARS = 200;
/** The most * one route PATH holds. */
export const MAX_ROUTE_WILDCARDS = 8;

/** How a route filter must be written, for errors. */
const ROUTE_HINT = `route=[METHOD] PATH such as route=POST /v1/payments or route=/v1/refunds* (PATH under /api/ or /v1/, at most ${MAX_ROUTE_PATH_CHARS} characters; each of at most ${MAX_ROUTE_WILDCARDS} * matches any run of characters), or route=METHOD such as route=POST`;

/** Parses "POST /v1/payments", "/v1/refunds*" or "GET"; the problem, in words that say how to fix it, when it is none of them or too big. */
export function parseRoutePattern(text: string): { pattern: RoutePattern } | { problem: string } {
  const parts = text.trim().split(/\s+/);
  let method: string | null = null;
  if (parts.length > 0 && METHODS.includes(parts[0].toUpperCase())) {
    method = parts[0].toUpperCase();
    parts.shift();
  }
  const bad = { problem: `write ${ROUTE_HINT}` };
  if (parts.length > 1 || (method === null && parts.length === 0)) return bad;
  const path = parts[0] ?? null;
  if (path !== null && !/^\/(api|v1)(\/|\*|$)/.test(path)) return bad;
  if (path !== null && path.length > MAX_ROUTE_PATH_CHARS)
    return { problem: `its PATH is ${path.length} characters long; a route PATH is at most ${MAX_ROUTE_PATH_CHARS} characters` };
  const pieces = path === null ? null : path.split('*');
  if (pieces !== null && pieces.length - 1 > MAX_ROUTE_WILDCARDS)
    return {
      problem: `its PATH holds ${pieces.length - 1} *; a route PATH holds at most ${MAX_ROUTE_WILDCARDS} (each matches any run of characters)`,
    };
  return { pattern: { method, pieces, text: [method, path].filter((part) => part !== null).join(' ') } };
}

/**
 * Whether `path` is the pieces with any run of characters in place of each * between them. One
 * pass, no backtracking: each middle piece is taken at its leftmost place after the one before
 * (leftmost is always right when * is the only wildcard), so the time grows with the path's length
 * times the pattern's, never exponentially (a regular expression of several .* did: seconds per request).
 */
function piecesMatch(pieces: readonly string[], path: string): boolean {
  const first = pieces[0];
  if (pieces.length === 1) return path === first;
  const last = pieces[pieces.length - 1];
  const end = path.length - last.length;
  if (end < first.length || !path.startsWith(first) || !path.endsWith(last)) return false;
  let at = first.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i];
    const found = path.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

/** Whether a request matches a route filter. */
export function routeMatches(pattern: RoutePattern, method: string, path: string): boolean {
  return (pattern.method === null || pattern.method === method) && (pattern.pieces === null || piecesMatch(pattern.pieces, path));
}
