// The MCP server of the sandbox (the official SDK's low-level Server): the tools of tools.ts, the
// resources of resources.ts and the prompts of prompts.ts over one control client. The same server
// runs on stdio (`sandbox mcp`, cli/mcp.ts) and over Streamable HTTP at /_sandbox/mcp
// (http/control/mcp.ts); both load this module only when they are used, so neither `sandbox start`
// nor any other command loads the SDK. Arguments are checked with the contracts' validate, so a bad
// one is a tool error that names the field and the fix, as the control API's 400s do.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { ClientError } from '../client/client-error.js';
import type { ControlClient } from '../client/control-client.js';
import { validate } from '../contracts/validate.js';
import { SandboxError } from '../errors.js';
import { VERSION } from '../version.js';
import { toolJsonSchema } from './json-schema.js';
import { argumentDescription, MCP_PROMPTS } from './prompts.js';
import { MCP_RESOURCES } from './resources.js';
import { MCP_TOOLS, type McpTool } from './tools.js';

/** What an agent is told when it connects. */
const INSTRUCTIONS = [
  'paysandbox is a local, stateful sandbox of a payment gateway: S2S and /v1/ payments, 3-D Secure, refunds, signed webhooks with retries, and controls no real gateway has.',
  'Start a test with create_merchant (isolated from every other test), pay with create_payment (card 4000000000003220 asks for 3-D Secure; finish it with authenticate),',
  'wait_for_delivery for the webhook your handler should get, show_delivery to see what it answered, and reset the merchant at the end.',
  'Read paysandbox://test-cards for which card does what.',
].join(' ');

let listed: Tool[] | undefined;

/** tools/list's answer, built once: every tool with its JSON Schemas and hints. */
export function toolList(): Tool[] {
  listed ??= MCP_TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toolJsonSchema(tool.input(), 'input'),
    outputSchema: toolJsonSchema(tool.output(), 'output'),
    annotations: { title: tool.title, ...tool.annotations },
  }));
  return listed;
}

/** A tool error: the message names the field and the fix (the control API's own when it answered one). */
function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

/** Runs one tool: its arguments validated, its answer as structured content and a summary, user errors as tool errors. */
export async function callTool(client: ControlClient, tool: McpTool, args: unknown): Promise<CallToolResult> {
  try {
    const { result, summary } = await tool.run(client, validate(tool.input(), args ?? {}) as never);
    return { content: [{ type: 'text', text: summary }], structuredContent: result };
  } catch (err) {
    if (err instanceof SandboxError || err instanceof ClientError) return toolError(`${tool.name}: ${err.message}`);
    throw err;
  }
}

/** An MCP server whose tools, resources and prompts use `client`. */
export function createMcpServer(client: ControlClient): Server {
  const server = new Server(
    { name: 'paysandbox', title: 'paysandbox payment sandbox', version: VERSION },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList() }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = MCP_TOOLS.find((t) => t.name === request.params.name);
    if (!tool)
      throw new McpError(
        ErrorCode.InvalidParams,
        `no tool ${request.params.name}; the tools are ${MCP_TOOLS.map((t) => t.name).join(', ')}`,
      );
    return callTool(client, tool, request.params.arguments);
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: MCP_RESOURCES.map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const resource = MCP_RESOURCES.find((r) => r.uri === request.params.uri);
    if (!resource)
      throw new McpError(
        ErrorCode.InvalidParams,
        `no resource ${request.params.uri}; the resources are ${MCP_RESOURCES.map((r) => r.uri).join(', ')}`,
      );
    try {
      return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: await resource.read(client) }] };
    } catch (err) {
      if (err instanceof ClientError) throw new McpError(ErrorCode.InternalError, err.message);
      throw err;
    }
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: MCP_PROMPTS.map((p) => ({
      name: p.name,
      title: p.title,
      description: p.description,
      arguments: p.arguments.map((a) => ({ name: a.name, description: argumentDescription(a.name), required: a.required })),
    })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    const prompt = MCP_PROMPTS.find((p) => p.name === request.params.name);
    if (!prompt)
      throw new McpError(
        ErrorCode.InvalidParams,
        `no prompt ${request.params.name}; the prompts are ${MCP_PROMPTS.map((p) => p.name).join(', ')}`,
      );
    const args = request.params.arguments ?? {};
    const missing = prompt.arguments.find((a) => a.required && !args[a.name]);
    if (missing) throw new McpError(ErrorCode.InvalidParams, `${missing.name} is required: ${argumentDescription(missing.name)}`);
    return {
      description: prompt.description,
      messages: [{ role: 'user', content: { type: 'text', text: prompt.message(args) } }],
    };
  });
  return server;
}
