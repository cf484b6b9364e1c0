// The contracts layer: what each interface accepts, as zod schemas (one file per interface: the
// v1 API, the S2S protocol, webhook endpoints), and `validate`, which checks input against one and
// turns the first failing field into a SandboxError naming the field and how to fix it. Services
// and routes both import from here, so services never import src/http; reading a request's body
// (Content-Type, JSON, forms) is HTTP's and stays in src/http/validation.ts. Each schema field
// carries a description (its hint), which is also what OpenAPI shows.
import * as z from 'zod';
import { SandboxError } from '../errors.js';
import { describeValue } from './json-shape.js';

function fieldHint(schema: z.ZodType, path: PropertyKey[]): string | undefined {
  let node: z.ZodType | undefined = schema;
  for (const key of path) {
    // Optional/nullable/default wrappers hide the object; arrays are walked by index below, not unwrapped.
    while (
      node &&
      !(node instanceof z.ZodObject) &&
      !(node instanceof z.ZodArray) &&
      'unwrap' in node &&
      typeof (node as { unwrap?: unknown }).unwrap === 'function'
    ) {
      node = (node as unknown as { unwrap(): z.ZodType }).unwrap();
    }
    if (node instanceof z.ZodObject) node = node.shape[key as string] as z.ZodType | undefined;
    else if (node instanceof z.ZodArray) node = node.element as z.ZodType;
    else return undefined;
  }
  // A default or optional wrapper made without a description of its own keeps the one inside.
  while (node && node.description === undefined && 'unwrap' in node && typeof (node as { unwrap?: unknown }).unwrap === 'function')
    node = (node as unknown as { unwrap(): z.ZodType }).unwrap();
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
    const key = issue.keys[0];
    return new SandboxError(
      'parameter_unknown',
      `${key} is not a field of this endpoint; remove it (see GET /openapi.json)`,
      [...issue.path.map(String), key].join('.'),
    );
  }
  const value = valueAt(input, issue.path);
  const blank = value === undefined || value === null || value === '';
  // Custom rules carry their own message; a conditionally required field left out is still "missing".
  if (issue.code === 'custom') return new SandboxError(blank ? 'parameter_missing' : 'parameter_invalid', issue.message, param);
  const hint = fieldHint(schema, issue.path);
  if (blank) {
    return new SandboxError('parameter_missing', `${name} is required${hint ? `: send ${hint}` : ''}`, param);
  }
  return new SandboxError(
    'parameter_invalid',
    `${name} is invalid: expected ${hint ?? issue.message}, got ${describeValue(issue.path, value)}`,
    param,
  );
}

/** Validates `input`; throws the first problem as a SandboxError, returns the parsed value. */
export function validate<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw issueToError(schema, input, result.error.issues[0]);
}
