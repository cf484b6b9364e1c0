// Request validation: reading bodies of the right content type and checking them against a zod
// schema. The first failing field becomes one SandboxError naming the field and how to fix it.
// Each schema field carries a description (its hint), which is also what OpenAPI shows.
import type { Context } from 'hono';
import * as z from 'zod';
import { SandboxError } from '../errors.js';
import { MAX_JSON_DEPTH, describeValue, shortPath, tooDeepPath } from './json-shape.js';

function fieldHint(schema: z.ZodType, path: PropertyKey[]): string | undefined {
  let node: z.ZodType | undefined = schema;
  for (const key of path) {
    // Optional/nullable/default wrappers hide the object; arrays are walked by index below, not unwrapped.
    while (node && !(node instanceof z.ZodObject) && !(node instanceof z.ZodArray) && 'unwrap' in node && typeof (node as { unwrap?: unknown }).unwrap === 'function') {
      node = (node as unknown as { unwrap(): z.ZodType }).unwrap();
    }
    if (node instanceof z.ZodObject) node = node.shape[key as string] as z.ZodType | undefined;
    else if (node instanceof z.ZodArray) node = node.element as z.ZodType;
    else return undefined;
  }
  return node?.description;
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

/** Turns the first zod issue into the SandboxError a merchant reads. */
export function issueToError(schema: z.ZodType, input: unknown, issue: z.core.$ZodIssue): SandboxError {
  const param = issue.path.map(String).join('.') || undefined;
  const name = param ?? 'body';
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    return new SandboxError('parameter_unknown', `${key} is not a field of this endpoint; remove it (see GET /openapi.json)`, [...issue.path.map(String), key].join('.'));
  }
  const value = valueAt(input, issue.path);
  const blank = value === undefined || value === null || value === '';
  // Custom rules carry their own message; a conditionally required field left out is still "missing".
  if (issue.code === 'custom') return new SandboxError(blank ? 'parameter_missing' : 'parameter_invalid', issue.message, param);
  const hint = fieldHint(schema, issue.path);
  if (blank) {
    return new SandboxError('parameter_missing', `${name} is required${hint ? `: send ${hint}` : ''}`, param);
  }
  return new SandboxError('parameter_invalid', `${name} is invalid: expected ${hint ?? issue.message}, got ${describeValue(issue.path, value)}`, param);
}

/** Validates `input`; throws the first problem as a SandboxError, returns the parsed value. */
export function validate<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw issueToError(schema, input, result.error.issues[0]!);
}

function mediaType(c: Context): string {
  return (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

// Fatal: a byte sequence that is not UTF-8 is refused instead of becoming U+FFFD, which made two
// references differing only in such bytes the same reference (and the same Idempotency-Key body).
const UTF8 = new TextDecoder('utf-8', { fatal: true });
// The idempotency middleware and the route both read the body; decode it once per request.
const decoded = new WeakMap<Request, string>();

/** The raw body text; a body the client never finished is a 400, not a 500, and so is one that is not UTF-8. */
export async function bodyText(c: Context): Promise<string> {
  const known = decoded.get(c.req.raw);
  if (known !== undefined) return known;
  let bytes: ArrayBuffer;
  try {
    bytes = await c.req.arrayBuffer();
  } catch {
    throw new SandboxError('invalid_json', 'the body could not be read to its end: the client stopped sending or was cut off by the request timeout (30 s); send the whole body at once');
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new SandboxError('invalid_encoding', `the body is not valid UTF-8 (${bytes.byteLength} bytes); send it encoded as UTF-8`);
  }
  decoded.set(c.req.raw, text);
  return text;
}

/** Refuses a body whose objects and arrays nest deeper than MAX_JSON_DEPTH, naming the field. */
function checkDepth(body: unknown): void {
  const path = tooDeepPath(body);
  if (!path) return;
  throw new SandboxError(
    'parameter_invalid',
    `${shortPath(path)} nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels; JSON bodies may nest at most ${MAX_JSON_DEPTH} levels deep (the body is level 1): send a flatter value`,
    shortPath(path, 200),
  );
}

/** Reads a JSON object body; a wrong Content-Type or malformed JSON is a 400 saying so. */
export async function readJson(c: Context): Promise<Record<string, unknown>> {
  const type = mediaType(c);
  if (type !== 'application/json') {
    throw new SandboxError('unsupported_content_type', `Content-Type must be application/json, got ${type ? `"${type}"` : 'none'}; send a JSON body with that header`);
  }
  const text = await bodyText(c);
  if (text.trim() === '') throw new SandboxError('invalid_json', 'the body is empty; send a JSON object');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new SandboxError('invalid_json', `the body is not valid JSON (${(err as Error).message}); send a JSON object`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new SandboxError('invalid_json', 'the body must be a JSON object, not ' + (Array.isArray(body) ? 'an array' : String(body === null ? 'null' : typeof body)));
  checkDepth(body);
  return body as Record<string, unknown>;
}

/** A JSON object body that may also be empty (operations whose fields are all optional). */
export async function readOptionalJson(c: Context): Promise<Record<string, unknown>> {
  return (await bodyText(c)).trim() === '' ? {} : readJson(c);
}

/** Reads an application/x-www-form-urlencoded body as a flat record of its fields. */
export async function readForm(c: Context): Promise<Record<string, string>> {
  const type = mediaType(c);
  if (type !== 'application/x-www-form-urlencoded') {
    throw new SandboxError('unsupported_content_type', `Content-Type must be application/x-www-form-urlencoded, got ${type ? `"${type}"` : 'none'}`);
  }
  return Object.fromEntries(new URLSearchParams(await bodyText(c)));
}

/** Parses query parameters with a schema (lists, filters). */
export function validateQuery<T extends z.ZodType>(c: Context, schema: T): z.output<T> {
  return validate(schema, c.req.query());
}
