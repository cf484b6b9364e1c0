// Shared pieces of the fuzz tests: the fixed seed, arbitraries that mutate a valid body (wrong
// types, huge strings, unicode, nulls, nesting, numbers as strings, missing fields, prototype
// keys, nesting thousands of levels deep, bytes that are not UTF-8, lone surrogate escapes), a
// trigger's `set` of dotted paths through prototype keys and a check that no prototype changed, the database fingerprint that
// proves a rejected request wrote nothing, and the check every answer must pass (no 5xx, the
// documented error shape on JSON errors).
import fc from 'fast-check';
import { expect } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/errors.js';
import type { TestSandbox } from '../helpers/test-sandbox.js';
import type { Json } from '../helpers/json.js';

/** The seed of every fuzz run (FUZZ_SEED overrides it); fast-check prints seed and path on failure. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20_260_115);

/** Runs per endpoint (FUZZ_RUNS overrides it). */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200);

/** fast-check options: the fixed seed, bounded runs, and the seed named in the failure report. */
export function fuzzOptions(numRuns = FUZZ_RUNS): fc.Parameters<unknown> {
  return { seed: FUZZ_SEED, numRuns, endOnFailure: true };
}

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((n) => String.fromCharCode(n)), maxLength: 40 });

/** Values that break naive code: wrong types, empties, extremes, unicode, injection text. */
export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 0.1 + 0.2, 1e-7, 99999999.999),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constant('x'.repeat(100_000)),
  fc.constant('é'.repeat(20_000)),
  fc.constantFrom('', ' ', '0', '-1', '1e9', '0x10', 'NaN', 'Infinity', 'null', 'true', '[]', '{}', '10.505', '1,00', '١٢٣'),
  fc.constantFrom(
    '<script>alert(1)</script>',
    "'; DROP TABLE transactions;--",
    '\u0000',
    '\ud800',
    '\u202e',
    '𝕏🙂👩‍👩‍👧',
    '../../etc/passwd',
    '%00%0d%0a',
    '{{7*7}}',
    'javascript:alert(1)',
  ),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.constant({ __proto__: null, polluted: true }),
);

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

/** Sets an own property, even one named __proto__ (a plain assignment would set the prototype). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Every path to a leaf of a JSON object, e.g. ["card", "number"]. */
function leafPaths(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return [prefix];
  return entries.flatMap(([key, child]) => [
    [...prefix, key],
    ...(child && typeof child === 'object' && !Array.isArray(child) ? leafPaths(child, [...prefix, key]) : []),
  ]);
}

type Mutation = { op: 'set' | 'delete' | 'swap' | 'add'; path: string[]; key?: string; value?: unknown };

function applyMutation(body: Record<string, unknown>, m: Mutation): void {
  let parent: Record<string, unknown> = body;
  const path = m.op === 'add' ? m.path : m.path.slice(0, -1);
  for (const key of path) {
    const next = parent[key];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) return;
    parent = next as Record<string, unknown>;
  }
  const key = m.op === 'add' ? m.key! : m.path[m.path.length - 1];
  if (key === undefined) return;
  if (m.op === 'delete') delete parent[key];
  else if (m.op === 'swap') {
    const old = parent[key];
    setOwn(
      parent,
      key,
      typeof old === 'number'
        ? String(old)
        : typeof old === 'string' && old.trim() !== '' && !Number.isNaN(Number(old))
          ? Number(old)
          : typeof old === 'boolean'
            ? String(old)
            : [old],
    );
  } else setOwn(parent, key, m.value);
}

/** A valid body with 1-3 mutations applied (a field changed, removed, retyped, or a key added). */
export function mutatedBody(valid: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  const paths = leafPaths(valid).filter((p) => p.length > 0);
  const objectPaths = [
    [],
    ...paths.filter((p) => {
      let v: unknown = valid;
      for (const k of p) v = (v as Record<string, unknown>)[k];
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    }),
  ];
  const add = fc.record({
    op: fc.constant('add' as const),
    path: fc.constantFrom(...objectPaths),
    key: fc.oneof(fc.constantFrom(...PROTO_KEYS), fc.string({ maxLength: 10 })),
    value: nastyValue,
  });
  // An empty valid body ({}) can only gain fields.
  const mutation: fc.Arbitrary<Mutation> =
    paths.length === 0
      ? add
      : fc.oneof(
          { weight: 4, arbitrary: fc.record({ op: fc.constant('set' as const), path: fc.constantFrom(...paths), value: nastyValue }) },
          { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), path: fc.constantFrom(...paths) }) },
          { weight: 2, arbitrary: fc.record({ op: fc.constant('swap' as const), path: fc.constantFrom(...paths) }) },
          { weight: 2, arbitrary: add },
        );
  return fc.array(mutation, { minLength: 1, maxLength: 3 }).map((mutations) => {
    const body = structuredClone(valid);
    for (const m of mutations) applyMutation(body, m);
    return body;
  });
}

/** The first segment of a `set` path: mostly the objects whose keys trigger nests (metadata.*, customer.*). */
const SET_ROOTS = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('metadata', 'customer') },
  { weight: 1, arbitrary: fc.constantFrom('amount', 'currency', 'reason', 'reference', ...PROTO_KEYS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);

/** A later segment: mostly a prototype key, else a plain name or anything. */
const SET_SEGMENT = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PROTO_KEYS) },
  { weight: 1, arbitrary: fc.constantFrom('polluted', 'order_id', 'email', 'country') },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);

/**
 * A trigger's `set`: 1-3 dotted paths, mostly through prototype keys (metadata.__proto__.polluted,
 * customer.constructor.prototype.x), with plain or nasty values; a path that is a prototype key
 * itself is an own key of the object, as JSON.parse makes it.
 */
export const setFields: fc.Arbitrary<Record<string, unknown>> = fc
  .array(
    fc.record({
      path: fc.tuple(SET_ROOTS, fc.array(SET_SEGMENT, { maxLength: 3 })).map(([root, rest]) => [root, ...rest].join('.')),
      value: fc.oneof({ weight: 2, arbitrary: fc.constantFrom('yes', 1500, 'USD', 'duplicate') }, { weight: 1, arbitrary: nastyValue }),
    }),
    { minLength: 1, maxLength: 3 },
  )
  .map((fields) => {
    const set: Record<string, unknown> = {};
    for (const { path, value } of fields) setOwn(set, path, value);
    return set;
  });

/** The keys added to or replaced on Object, Function and Array prototypes since it was called (a pollution), as a function. */
export function prototypeChanges(): () => string[] {
  const prototypes: object[] = [Object.prototype, Function.prototype, Array.prototype];
  const saved = prototypes.map((p) => Object.getOwnPropertyDescriptors(p));
  return () =>
    prototypes.flatMap((p, i) =>
      Reflect.ownKeys(p)
        .filter((key) => !Object.is(Object.getOwnPropertyDescriptor(p, key)?.value, saved[i]![key as string]?.value))
        .map(String),
    );
}

/** A request body: usually a mutated valid one, sometimes any JSON value or raw text (or bytes that are not UTF-8). */
export interface FuzzBody {
  raw: string | Uint8Array;
  contentType: string | undefined;
}

/** Content types, mostly `right` so most bodies reach the validators. */
export function contentTypeFor(right: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(right) },
    { weight: 1, arbitrary: fc.constantFrom(right.toUpperCase(), `${right}; charset=utf-8`, `${right}; charset=utf-16`) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        undefined,
        '',
        'text/plain',
        'application/json',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=zz',
        'multipart/form-data',
        'application/xml',
        '*/*',
        'application/json;;;',
        printable as unknown as string,
      ),
    },
  ) as fc.Arbitrary<string | undefined>;
}

/** Byte sequences that are not UTF-8: stray continuation and lead bytes, surrogates, overlongs, beyond U+10FFFF. */
const NOT_UTF8 = [
  [0xff],
  [0xfe],
  [0x80],
  [0xc3],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xc0, 0xaf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
];

/**
 * Bodies that broke the readers, not the validators: a field of `valid` replaced by objects or
 * arrays nested 30 to 5 000 levels deep (written as text: JSON.stringify cannot), a mutated body
 * with bytes that are not UTF-8 put anywhere in it, and a lone surrogate escape in a value or key.
 */
export function hostileJsonText(valid: Record<string, unknown>): fc.Arbitrary<string | Uint8Array> {
  const keys = Object.keys(valid);
  const deep = fc
    .record({
      key: keys.length ? fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 })) : fc.string({ maxLength: 8 }),
      levels: fc.oneof(fc.integer({ min: 30, max: 40 }), fc.integer({ min: 40, max: 5000 })),
      open: fc.constantFrom('[', '{"a":', '[{"b":'),
    })
    .map(({ key, levels, open }) => {
      const close = open
        .replace(/"[a-z]":/g, '')
        .split('')
        .reverse()
        .map((ch) => (ch === '[' ? ']' : '}'))
        .join('');
      const reps = Math.ceil(levels / (close.length || 1));
      const nested = `${open.repeat(reps)}0${close.repeat(reps)}`;
      return JSON.stringify({ ...valid, [key]: 'DEEP' }).replace('"DEEP"', nested);
    });
  const bytes = fc
    .record({ text: mutatedBody(valid).map((b) => JSON.stringify(b)), at: fc.nat(), bad: fc.constantFrom(...NOT_UTF8) })
    .map(({ text, at, bad }) => {
      const raw = Buffer.from(text);
      const cut = at % (raw.length + 1);
      return new Uint8Array(Buffer.concat([raw.subarray(0, cut), Buffer.from(bad), raw.subarray(cut)]));
    });
  return fc.oneof(deep, bytes, loneSurrogateText(valid));
}

/** JSON escapes of UTF-16 surrogates without their pair, alone or next to text or another unit. */
export const LONE_SURROGATES = ['\\ud800', '\\uDFFF', 'x\\udbffy', '\\udc00\\ud800', '\\ud83d', 'a\\ude00', '\\ud800\\u0041'];

/** `valid` as JSON text with a lone surrogate escape in a field's value or in a key (JSON.stringify would escape it whole). */
export function loneSurrogateText(valid: Record<string, unknown>): fc.Arbitrary<string> {
  const keys = Object.keys(valid);
  return fc
    .record({
      key: keys.length ? fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 })) : fc.string({ maxLength: 8 }),
      unit: fc.constantFrom(...LONE_SURROGATES),
      inKey: fc.boolean(),
    })
    .map(({ key, unit, inKey }) =>
      inKey
        ? JSON.stringify({ ...valid, LONE_KEY: 1 }).replace('"LONE_KEY"', `"${unit}"`)
        : JSON.stringify({ ...valid, [key]: 'LONE' }).replace('"LONE"', `"${unit}"`),
    );
}

/** JSON bodies for an endpoint whose valid body is `valid`. */
export function jsonBody(valid: Record<string, unknown>): fc.Arbitrary<FuzzBody> {
  const text = fc.oneof(
    { weight: 8, arbitrary: mutatedBody(valid).map((b) => JSON.stringify(b)) as fc.Arbitrary<string | Uint8Array> },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? '') },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.string({ maxLength: 50 }),
        fc.constantFrom(
          '',
          '{',
          '{"a":',
          '[1,2',
          'null',
          '"text"',
          '{"__proto__":{"admin":true}}',
          '{"constructor":{"prototype":{"x":1}}}',
          JSON.stringify(valid).slice(0, -3),
        ),
      ),
    },
    { weight: 1, arbitrary: hostileJsonText(valid) },
  );
  return fc.record({ raw: text, contentType: contentTypeFor('application/json') });
}

/** Form bodies: a mutated valid form, with values stringified as a browser would send them. */
export function formBody(valid: Record<string, string>): fc.Arbitrary<FuzzBody> {
  // URLSearchParams, not encodeURIComponent: it encodes lone surrogates (as U+FFFD) instead of throwing.
  const encode = (b: Record<string, unknown>) =>
    new URLSearchParams(
      Object.entries(b).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : (JSON.stringify(v) ?? '')]),
    ).toString();
  const text = fc.oneof(
    { weight: 8, arbitrary: mutatedBody(valid).map(encode) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.string({ maxLength: 60 }),
        fc.constantFrom('', '=', '&&&', '%', '%zz=1', 'a=%E0%A4%A', 'csrf=&csrf=x', '__proto__=1&constructor=2'),
      ),
    },
  );
  return fc.record({ raw: text, contentType: contentTypeFor('application/x-www-form-urlencoded') });
}

/** Random request headers: Idempotency-Key, X-Sandbox-Outcome, odd Authorization values. */
export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'idempotency-key': fc.oneof(printable, fc.constant('k'.repeat(300))),
    'x-sandbox-outcome': fc.oneof(printable, fc.constantFrom('approve', 'decline:card_declined', 'challenge', 'decline:nope')),
    accept: fc.constantFrom('text/html', '*/*', 'application/json'),
  },
  { requiredKeys: [] },
);

/** Authorization values for /v1/: mostly the right key, sometimes wrong, live, malformed or absent. */
export function bearerHeader(right: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(`Bearer ${right}`) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        undefined,
        '',
        'Bearer',
        'Bearer sk_live_abc',
        'Bearer sk_test_nope',
        `bearer  ${right}`,
        'Basic c2tfdGVzdDo=',
        `Bearer ${right} extra`,
        `Bearer ${'a'.repeat(5000)}`,
      ),
    },
    { weight: 1, arbitrary: printable },
  );
}

/** The tables whose writes a connection counts (watchWrites), by connection. */
const watched = new WeakMap<TestSandbox['db'], () => Record<string, number>>();

/**
 * Temporary triggers on the sandbox's connection (an in-memory database has no other) that count,
 * table by table, every row a statement inserts, deletes or changes; an UPDATE that leaves a row as
 * it was is not a change. They write to a temporary table in the statement's own transaction, so a
 * rolled-back write counts nothing. They are the connection's alone: the sandbox's answers and the
 * rows it stores are unchanged (SQLite's changes() and last insert rowid leave out a trigger's writes).
 */
function watchWrites(db: TestSandbox['db']): () => Record<string, number> {
  const known = watched.get(db);
  if (known) return known;
  db.exec('CREATE TEMP TABLE fuzz_writes (name TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID');
  const tables = db
    // The request journal keeps every request with its answer, refused ones included (docs/journal.md):
    // a log of what was asked, not state a request changes, so it is left out.
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'request_journal' ORDER BY name")
    .pluck()
    .all() as string[];
  for (const table of tables) {
    const columns = db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[];
    const same = columns.map((c) => `OLD."${c}" IS NEW."${c}"`).join(' AND ');
    const count = `INSERT INTO fuzz_writes VALUES ('${table}', 1) ON CONFLICT (name) DO UPDATE SET n = n + 1;`;
    db.exec(`CREATE TEMP TRIGGER "fuzz_insert_${table}" AFTER INSERT ON main."${table}" BEGIN ${count} END`);
    db.exec(`CREATE TEMP TRIGGER "fuzz_delete_${table}" AFTER DELETE ON main."${table}" BEGIN ${count} END`);
    db.exec(`CREATE TEMP TRIGGER "fuzz_update_${table}" AFTER UPDATE ON main."${table}" WHEN NOT (${same}) BEGIN ${count} END`);
  }
  const read = db.prepare('SELECT name, n FROM temp.fuzz_writes').raw();
  const writes = () => Object.fromEntries(read.all() as [string, number][]);
  watched.set(db, writes);
  return writes;
}

/**
 * The rows written so far to every table but the request journal, by table: equal before and after
 * a request when it wrote nothing. The first call on a sandbox starts counting (watchWrites); a
 * check reads one small table, where hashing every table's contents twice per request was most of
 * the fuzz tests' CPU.
 */
export function dbFingerprint(sb: TestSandbox): Record<string, number> {
  return watchWrites(sb.db)();
}

/** Tables a rejected request may change by design: the stored answer of an Idempotency-Key. */
export function allowedChanges(headers: Record<string, string>): string[] {
  return 'idempotency-key' in headers ? ['idempotency_keys'] : [];
}

/** Drops the tables a request may change from a fingerprint. */
export function without(fp: Record<string, number>, tables: string[]): Record<string, number> {
  const copy = { ...fp };
  for (const t of tables) delete copy[t];
  return copy;
}

/** The answer of one fuzzed request. */
export interface FuzzAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: Json;
}

/** No 5xx; a JSON error has the documented shape and a catalogue code; `json` endpoints answer JSON errors. */
export function expectWellFormed(res: FuzzAnswer, what: string, jsonErrors: boolean): void {
  expect(res.status, `${what} -> ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status < 400) return;
  const type = res.headers.get('content-type') ?? '';
  if (jsonErrors) expect(type, `${what}: a ${res.status} must be JSON`).toMatch(/^application\/json/);
  if (!type.startsWith('application/json')) return;
  const error = res.json?.error;
  expect(error, `${what}: error body ${res.text.slice(0, 300)}`).toBeTypeOf('object');
  expect(
    Object.keys(error)
      .sort()
      .filter((k) => k !== 'param'),
  ).toEqual(['code', 'message', 'request_id', 'type']);
  expect(error.code in ERROR_CATALOGUE, `${what}: unknown code ${error.code}`).toBe(true);
  expect(ERROR_CATALOGUE[error.code as keyof typeof ERROR_CATALOGUE].status).toBe(res.status);
  expect(error.type).toBe(ERROR_CATALOGUE[error.code as keyof typeof ERROR_CATALOGUE].type);
  expect(typeof error.message === 'string' && error.message.length > 0).toBe(true);
  expect(error.request_id).toMatch(/^req_/);
  expect(res.headers.get('x-request-id')).toBe(error.request_id);
  if (error.param !== undefined) expect(typeof error.param).toBe('string');
}

/** Sends one raw request through the in-process app. */
export async function send(
  sb: TestSandbox,
  method: string,
  path: string,
  body: FuzzBody | undefined,
  headers: Record<string, string>,
): Promise<FuzzAnswer> {
  const all: Record<string, string> = { ...headers };
  if (body?.contentType !== undefined) all['content-type'] = body.contentType;
  const init: RequestInit = { method, headers: all };
  if (body !== undefined && method !== 'GET' && method !== 'HEAD') init.body = body.raw;
  const res = await sb.app.request(path, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Sends, checks the answer, and checks a rejected request left the database as it was. */
export async function sendAndCheck(
  sb: TestSandbox,
  method: string,
  path: string,
  body: FuzzBody | undefined,
  headers: Record<string, string>,
  options: { jsonErrors: boolean; mayChange?: (status: number) => string[] },
) {
  const before = dbFingerprint(sb);
  const res = await send(sb, method, path, body, headers);
  const raw = body === undefined ? '' : typeof body.raw === 'string' ? body.raw : `(bytes) ${Buffer.from(body.raw).toString('latin1')}`;
  const what = `${method} ${path} [${body?.contentType ?? 'no type'}] ${JSON.stringify(headers).slice(0, 200)} ${raw.slice(0, 200)}`;
  expectWellFormed(res, what, options.jsonErrors);
  if (res.status >= 400) {
    const skip = [...allowedChanges(headers), ...(options.mayChange?.(res.status) ?? [])];
    expect(without(dbFingerprint(sb), skip), `${what}: a rejected request changed the database`).toEqual(without(before, skip));
  }
  return res;
}
