// The MCP server's tools against the control API's contracts, so the two cannot drift: a tool that
// stands for a control route takes exactly that route's fields (the same JSON Schema, the same
// required ones) and answers that route's view; every tool carries its hints.
import { describe, expect, it } from 'vitest';
import { createPaymentSchema } from '../../src/contracts/v1-payments.js';
import { jsonSchemaOf } from '../../src/http/openapi/components.js';
import { OPENAPI_ROUTES } from '../../src/http/openapi-routes.js';
import { toolJsonSchema } from '../../src/mcp/json-schema.js';
import { toolList } from '../../src/mcp/server.js';
import { MCP_TOOLS } from '../../src/mcp/tools.js';

type JsonObject = { properties?: Record<string, Record<string, unknown>>; required?: string[] };

const listed = new Map(toolList().map((tool) => [tool.name, tool]));

describe('the tools of the MCP server', () => {
  it('are the ones the issue names, and a merchant deletion', () => {
    expect([...listed.keys()].sort()).toEqual(
      [
        'create_merchant',
        'create_payment',
        'authenticate',
        'trigger_event',
        'advance_clock',
        'script_token',
        'set_faults',
        'clear_faults',
        'list_deliveries',
        'show_delivery',
        'replay_delivery',
        'diagnose_signature',
        'audit_webhooks',
        'wait_for_delivery',
        'reset',
        'delete_merchant',
      ].sort(),
    );
  });

  it.each(MCP_TOOLS.filter((tool) => tool.route).map((tool) => [tool.name, tool] as const))(
    '%s takes the fields of its control route, each with the same schema, and answers its view',
    (name, tool) => {
      const route = OPENAPI_ROUTES.find((r) => r.method === tool.route!.method && r.path === tool.route!.path);
      expect(route, `${tool.route!.method} ${tool.route!.path} is documented`).toBeDefined();
      const contract = route![tool.route!.in === 'body' ? 'body' : 'query'];
      expect(contract, `${name}: the route's ${tool.route!.in}`).toBeDefined();
      const routeJson = jsonSchemaOf(contract!()) as JsonObject;
      const toolJson = listed.get(name)!.inputSchema as JsonObject;
      for (const [field, schema] of Object.entries(routeJson.properties ?? {}))
        expect(toolJson.properties?.[field], `${name}.${field}`).toEqual(schema);
      // Only path parameters come on top of the route's fields.
      const extra = Object.keys(toolJson.properties ?? {}).filter((field) => !(field in (routeJson.properties ?? {})));
      const pathParameters = [...route!.path.matchAll(/:([A-Za-z_]+)/g)].length;
      expect(extra.length, `${name}: ${extra.join(', ')}`).toBe(pathParameters);
      for (const field of routeJson.required ?? []) expect(toolJson.required, name).toContain(field);
      // A route that refuses unknown fields has a tool that refuses unknown arguments.
      if ((routeJson as { additionalProperties?: unknown }).additionalProperties === false)
        expect((toolJson as { additionalProperties?: unknown }).additionalProperties, name).toBe(false);
      // reset's route answers either reset; the tool, scoped to a merchant, only the merchant's.
      if (route!.responseSchema && name !== 'reset')
        expect(toolJsonSchema(tool.output(), 'output'), `${name}'s answer`).toEqual(toolJsonSchema(route!.responseSchema!(), 'output'));
    },
  );

  it("create_payment's money and order fields are those of POST /v1/payments", () => {
    const v1 = jsonSchemaOf(createPaymentSchema()) as JsonObject;
    const tool = listed.get('create_payment')!.inputSchema as JsonObject;
    for (const field of ['amount', 'currency', 'reference', 'capture']) {
      const { default: _default, ...schema } = tool.properties![field]!;
      const { default: _v1default, ...v1Schema } = v1.properties![field]!;
      expect(schema, field).toEqual(v1Schema);
    }
  });

  it('every tool carries its hints, a title, an object for arguments and one for its answer', () => {
    for (const tool of listed.values()) {
      expect(tool.annotations, tool.name).toEqual({
        title: tool.title,
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
      });
      // A tool that only reads destroys nothing.
      if (tool.annotations!.readOnlyHint) expect(tool.annotations!.destructiveHint, tool.name).toBe(false);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(JSON.stringify(tool.inputSchema), tool.name).not.toContain('$schema');
    }
    expect(listed.get('reset')!.annotations).toMatchObject({ destructiveHint: true });
    expect(listed.get('show_delivery')!.annotations).toMatchObject({ readOnlyHint: true });
  });
});
