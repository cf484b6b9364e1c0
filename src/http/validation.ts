// Reading request bodies of the right content type (JSON, forms, query strings) and checking them
// with the contracts' `validate` (src/contracts/validate.ts), which names the first failing field.
import type { Context } from 'hono';
import type * as z from 'zod';
import { SandboxError, errorMessage } from '../errors.js';
import { loneSurrogatePath, MAX_JSON_DEPTH, shortPath, tooDeepPath } from '../contracts/json-shape.js';
import { validate } from '../contracts/validate.js';
import { frontBody } from './prevalidation.js';
import type { LazySchema } from '../lazy-schema.js';

function mediaType(c: Context): string {
  return (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
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
  // Decoded already on the front thread (a body that is not UTF-8 comes as bytes, read below).
  const front = frontBody(c)?.text;
  if (front !== undefined && front !== null) return checkedText(c, front);
  let bytes: ArrayBuffer;
  try {
    bytes = await c.req.arrayBuffer();
  } catch {
    throw new SandboxError(
      'invalid_json',
      'the body could not be read to its end: the client stopped sending or was cut off by the request timeout (30 s); send the whole body at once',
    );
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new SandboxError('invalid_encoding', `the body is not valid UTF-8 (${bytes.byteLength} bytes); send it encoded as UTF-8`);
  }
  return checkedText(c, text);
}

/** Refuses lone surrogates in a JSON body's text, and remembers the text for the request. */
function checkedText(c: Context, text: string): string {
  if (ESCAPED_SURROGATE.test(text) && mediaType(c) === 'application/json') refuseLoneSurrogates(text);
  decoded.set(c.req.raw, text);
  return text;
}

// JSON's \uD800-\uDFFF escapes: only a body holding one can decode to a lone surrogate.
const ESCAPED_SURROGATE = /\\u[dD][89a-fA-F]/;

/**
 * Refuses JSON text whose strings or keys decode to a lone surrogate ("\ud800" without its pair):
 * stored, it became U+FFFD as bytes that are not UTF-8 did, so it is refused as they are, here,
 * before an Idempotency-Key fingerprints the body. Malformed JSON is readJson's to report.
 */
function refuseLoneSurrogates(text: string): void {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return;
  }
  const path = loneSurrogatePath(body);
  if (!path) return;
  const where = path.length === 0 ? 'the body' : shortPath(path);
  throw new SandboxError(
    'invalid_encoding',
    `${where} holds a lone surrogate (a \\ud800-\\udfff escape without its pair), which is not a character and would be stored as U+FFFD; escape a character beyond U+FFFF as its pair, such as \\ud83d\\ude00, or send it as UTF-8`,
    path.length === 0 ? undefined : shortPath(path, 200),
  );
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
  // Nothing sent at all (a body-less call the control guard let through): what is missing is the body.
  if (type === '' && (await bodyText(c)) === '')
    throw new SandboxError('invalid_json', 'the body is empty; send a JSON object with Content-Type: application/json');
  if (type !== 'application/json') {
    throw new SandboxError(
      'unsupported_content_type',
      `Content-Type must be application/json, got ${type ? `"${type}"` : 'none'}; send a JSON body with that header`,
    );
  }
  const text = await bodyText(c);
  if (text.trim() === '') throw new SandboxError('invalid_json', 'the body is empty; send a JSON object');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new SandboxError('invalid_json', `the body is not valid JSON (${errorMessage(err)}); send a JSON object`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new SandboxError(
      'invalid_json',
      `the body must be a JSON object, not ${Array.isArray(body) ? 'an array' : String(body === null ? 'null' : typeof body)}`,
    );
  checkDepth(body);
  return body as Record<string, unknown>;
}

/**
 * The JSON object body (readJson) validated by `schema`. The body is read first and the schema built
 * after (src/lazy-schema.ts), so a body refused before validation, such as the warm-up's, builds none.
 */
export async function validJson<T extends z.ZodType>(c: Context, schema: LazySchema<T>): Promise<z.output<T>> {
  const body = await readJson(c);
  return validate(schema(), body);
}

/** A JSON object body that may also be empty (operations whose fields are all optional). */
export async function readOptionalJson(c: Context): Promise<Record<string, unknown>> {
  return (await bodyText(c)).trim() === '' ? {} : readJson(c);
}

/** readOptionalJson() validated by `schema`, read first and built after, as validJson(). */
export async function validOptionalJson<T extends z.ZodType>(c: Context, schema: LazySchema<T>): Promise<z.output<T>> {
  const body = await readOptionalJson(c);
  return validate(schema(), body);
}

/** Reads an application/x-www-form-urlencoded body as a flat record of its fields. */
export async function readForm(c: Context): Promise<Record<string, string>> {
  const type = mediaType(c);
  if (type !== 'application/x-www-form-urlencoded') {
    throw new SandboxError(
      'unsupported_content_type',
      `Content-Type must be application/x-www-form-urlencoded, got ${type ? `"${type}"` : 'none'}`,
    );
  }
  return Object.fromEntries(new URLSearchParams(await bodyText(c)));
}

/** Parses query parameters with a schema (lists, filters); takes the builder, as validJson() does. */
export function validateQuery<T extends z.ZodType>(c: Context, schema: LazySchema<T>): z.output<T> {
  return validate(schema(), c.req.query());
}
