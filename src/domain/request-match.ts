// Assertions on what the merchant sent (expectRequested, `sandbox requests expect`): which recorded
// requests match an expectation (method, path, a partial body, headers), and when too few or too
// many do, the closest others with every field that differs, as WireMock's near misses show them.
import { masked, REDACTED } from './journal-mask.js';

/** A recorded request as the check reads it (a journal row). */
export interface RecordedRequest {
  id: string;
  method: string;
  path: string;
  status: number;
  /** ISO time it came in, for the message. */
  at: string;
  headers: Readonly<Record<string, string>>;
  body: string | null;
}

/** What the merchant should have sent; every field given must hold. */
export interface RequestExpectation {
  method?: string;
  /** The exact path, or a pattern where * matches any run of characters. */
  path?: string;
  /** A partial body: each field given must be there with the same value (objects deeply, arrays whole). */
  body?: unknown;
  headers?: Readonly<Record<string, string>>;
  /** Exactly this many matching requests; at least one when not given. */
  count?: number;
}

/** One field that differs: where (method, path, body.amount, headers.idempotency-key), what was expected and what was sent. */
export interface Difference {
  field: string;
  expected: unknown;
  /** What the request had; undefined when the field was missing. */
  actual: unknown;
}

/** A request that did not match, with what differs. */
export interface NearMiss {
  request: RecordedRequest;
  differences: Difference[];
}

/** The check's verdict. */
export interface ExpectationResult {
  ok: boolean;
  /** The requests that match, oldest first. */
  matches: RecordedRequest[];
  /** The closest requests that do not, closest first (only when the check failed for want of a match). */
  nearMisses: NearMiss[];
  /** One paragraph: what was expected, what was found, the near misses. */
  message: string;
}

/** Near misses listed at most. */
export const NEAR_MISSES = 3;

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A body's fields: JSON as parsed, a form as its fields (text values), or undefined for anything else. */
export function bodyFields(body: string | null): unknown {
  if (body === null || body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    // Not JSON: a form, or text.
  }
  if (!/^[^=&\s]+=[^\s]*$/.test(body)) return undefined;
  const fields: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(body)) fields[key] = value;
  return fields;
}

/** A path pattern (* for any run) as a regular expression. */
const pathPattern = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

/** How the journal would have stored `expected` as field `key`: so a full card number expected matches its mask. */
function asStored(key: string, expected: unknown): unknown {
  if (typeof expected !== 'string' && typeof expected !== 'number') return expected;
  const stored = masked(JSON.stringify({ [key]: expected }));
  return (JSON.parse(stored) as Record<string, unknown>)[key];
}

/** True when two JSON values are equal (objects whatever their key order). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => same(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && same(a[key], b[key]));
  }
  return false;
}

/** The fields of `actual` that differ from the partial `expected`, under `at`. */
function bodyDifferences(expected: unknown, actual: unknown, at: string, key: string, form: boolean): Difference[] {
  if (isObject(expected)) {
    if (!isObject(actual)) return [{ field: at, expected, actual }];
    return Object.entries(expected).flatMap(([name, value]) =>
      Object.hasOwn(actual, name)
        ? bodyDifferences(value, actual[name], `${at}.${name}`, name, form)
        : [{ field: `${at}.${name}`, expected: value, actual: undefined }],
    );
  }
  // A value the journal never keeps (a CVV, a key) matches whatever was expected of it.
  if (actual === REDACTED) return [];
  // A form's values are text: 1050 is sent as "1050".
  const wanted = form && (typeof expected === 'number' || typeof expected === 'boolean') ? String(expected) : expected;
  if (same(wanted, actual) || same(asStored(key, wanted), actual)) return [];
  return [{ field: at, expected, actual }];
}

/** Every field of `request` that differs from `expectation` (empty: it matches). */
export function differences(request: RecordedRequest, expectation: RequestExpectation): Difference[] {
  const out: Difference[] = [];
  if (expectation.method !== undefined && expectation.method.toUpperCase() !== request.method)
    out.push({ field: 'method', expected: expectation.method.toUpperCase(), actual: request.method });
  if (expectation.path !== undefined && !pathPattern(expectation.path).test(request.path))
    out.push({ field: 'path', expected: expectation.path, actual: request.path });
  for (const [name, value] of Object.entries(expectation.headers ?? {})) {
    const actual = request.headers[name.toLowerCase()];
    if (actual !== value && actual !== REDACTED && !(actual?.endsWith(` ${REDACTED}`) && value.startsWith(actual.split(' ')[0] ?? '')))
      out.push({ field: `headers.${name.toLowerCase()}`, expected: value, actual });
  }
  if (expectation.body !== undefined) {
    const fields = bodyFields(request.body);
    const form = fields !== undefined && request.body !== null && !/^\s*[[{"]/.test(request.body);
    if (fields === undefined) out.push({ field: 'body', expected: expectation.body, actual: request.body ?? undefined });
    else out.push(...bodyDifferences(expectation.body, fields, 'body', '', form));
  }
  return out;
}

const shown = (value: unknown) => (value === undefined ? 'missing' : JSON.stringify(value).slice(0, 200));
const described = (r: RecordedRequest) => `${r.method} ${r.path} (${r.id}, answered ${r.status}, at ${r.at})`;

/** What the expectation asks for, in words. */
function wanted(e: RequestExpectation): string {
  const parts = [e.method?.toUpperCase() ?? 'any method', e.path ?? 'any path'];
  if (e.body !== undefined) parts.push(`with body ${shown(e.body)}`);
  if (e.headers !== undefined) parts.push(`with headers ${shown(e.headers)}`);
  return parts.join(' ');
}

/**
 * Checks `requests` (every request recorded, oldest first) against `expectation`: exactly `count`
 * matches, or at least one. When it fails for want of a match, the near misses are the requests
 * with the fewest differing fields (newest first among equals); when it fails for too many, the
 * matches are listed.
 */
export function checkExpectation(requests: readonly RecordedRequest[], expectation: RequestExpectation): ExpectationResult {
  const scored = requests.map((request) => ({ request, differences: differences(request, expectation) }));
  const matches = scored.filter((s) => s.differences.length === 0).map((s) => s.request);
  const { count } = expectation;
  const ok = count === undefined ? matches.length > 0 : matches.length === count;
  const want = count === undefined ? 'at least one request' : `exactly ${count} request${count === 1 ? '' : 's'}`;
  if (ok) return { ok, matches, nearMisses: [], message: `${matches.length} request(s) ${wanted(expectation)}, as expected (${want})` };
  if (count !== undefined && matches.length > count) {
    const listed = matches.map((m) => `  ${described(m)}`).join('\n');
    return {
      ok,
      matches,
      nearMisses: [],
      message: `expected ${want} ${wanted(expectation)}, found ${matches.length}:\n${listed}`,
    };
  }
  const nearMisses = scored
    .filter((s) => s.differences.length > 0)
    .map((s, order) => ({ ...s, order }))
    .sort((a, b) => a.differences.length - b.differences.length || b.order - a.order)
    .slice(0, NEAR_MISSES)
    .map(({ request, differences: d }) => ({ request, differences: d }));
  const found = matches.length === 0 ? 'none was found' : `found ${matches.length}`;
  const closest =
    nearMisses.length === 0
      ? 'The journal holds no request at all in that window.'
      : `The closest:\n${nearMisses
          .map(
            (n) =>
              `  ${described(n.request)}\n${n.differences.map((d) => `    ${d.field}: expected ${shown(d.expected)}, got ${shown(d.actual)}`).join('\n')}`,
          )
          .join('\n')}`;
  return { ok, matches, nearMisses, message: `expected ${want} ${wanted(expectation)}; ${found}. ${closest}` };
}
