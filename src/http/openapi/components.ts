// The document's components.schemas: the one error body, and every named zod schema (`.meta({ id })`)
// met while converting requests and answers. jsonSchemaOf converts a schema without naming.
import * as z from 'zod';
import { ERROR_CATALOGUE } from '../../errors.js';

/** Converts a zod schema to the JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) of its input. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/** components.schemas.Error: the body of every error answer. */
export const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message', 'request_id'],
      properties: {
        type: { type: 'string', enum: [...new Set(Object.values(ERROR_CATALOGUE).map((e) => e.type))] },
        code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
        message: { type: 'string', description: 'names the field and says how to fix it' },
        param: { type: 'string', description: 'the offending field, when there is one' },
        request_id: { type: 'string', description: 'req_..., also in the X-Request-Id header' },
      },
    },
  },
};

/**
 * Collects the named schemas (zod `.meta({ id })`) of every conversion into components.schemas, so
 * the document's components come out of the same schemas that validate and serialize; a name used
 * for two different shapes is a bug and throws.
 */
export class Components {
  /** components.schemas: the Error body and every named schema met so far. */
  readonly schemas: Record<string, unknown> = { Error: ERROR_SCHEMA };

  /** The JSON Schema of `schema`'s input (requests) or output (answers), named schemas as $refs. */
  of(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, unknown>;
    delete json.$defs;
    for (const [name, def] of Object.entries(defs)) this.add(name, def);
    const id = z.globalRegistry.get(schema)?.id;
    if (!id) return this.refs(json);
    // A named root comes out either inline or as a $ref to its own $defs entry (added above).
    if (json.$ref !== `#/$defs/${id}`) this.add(id, json);
    return { $ref: `#/components/schemas/${id}` };
  }

  private add(name: string, def: unknown): void {
    const text = JSON.stringify(this.refs(def));
    const known = this.schemas[name];
    if (known !== undefined && JSON.stringify(known) !== text)
      throw new Error(`OpenAPI component ${name} has two shapes (a request and an answer?): give one of them another id`);
    this.schemas[name] = JSON.parse(text);
  }

  /** Points zod's local $defs references at components.schemas. */
  private refs<T>(json: T): T {
    return JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/')) as T;
  }
}
