// The JSON Schema (draft 2020-12, MCP's dialect) of a tool's arguments or answer, from the same zod
// schema the control API validates or answers with. MCP wants an object at the root: a schema named
// with .meta({ id }) comes out as a $ref to its own $defs entry, which is inlined, and a union of
// objects is marked an object too.
import * as z from 'zod';

/** The JSON Schema of `schema`'s input (arguments) or output (answers), with an object at its root. */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> & { type: 'object' } {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;
  // A client validating with another dialect's meta-schema would fail on the $schema it does not know.
  delete json.$schema;
  const defs = json.$defs as Record<string, Record<string, unknown>> | undefined;
  const ref = typeof json.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(json.$ref)?.[1] : undefined;
  if (ref !== undefined && defs?.[ref]) {
    delete json.$ref;
    Object.assign(json, defs[ref]);
  }
  return { ...json, type: 'object' };
}
