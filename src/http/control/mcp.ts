// POST /_sandbox/mcp: the MCP server of `sandbox mcp` over Streamable HTTP (stateless, JSON answers),
// on every running sandbox, behind the control guard like all of /_sandbox (loopback or the
// --control-token, loopback Hosts against DNS rebinding, no cross-site Origin): the MCP
// specification's security notes ask exactly that of a local server. Its tools send their control
// requests straight into this app (`dispatch`), through the same guard and routes as any client's.
// The SDK is loaded on the first request, never at start-up.
import { Hono } from 'hono';
import { ControlClient } from '../../client/control-client.js';
import { mcpMessageSchema } from '../../contracts/mcp-tools.js';
import { mcpAnswerView } from '../../views/mcp-results.js';
import type { AppDeps, AppEnv } from '../app-env.js';
import type { OpenApiRoute } from '../openapi/route.js';
import { controlRoute } from './control-route.js';

/** The largest MCP message taken: a diagnose_signature body of 1 000 000 characters, escaped, fits. */
const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** POST /mcp under /_sandbox; `dispatch` answers a request as this app does (app.fetch). */
export function controlMcpRoutes(deps: AppDeps, dispatch: (request: Request) => Response | Promise<Response>) {
  const app = new Hono<AppEnv>();
  app.post('/mcp', async (c) => {
    const [{ createMcpServer }, { WebStandardStreamableHTTPServerTransport }] = await Promise.all([
      import('../../mcp/server.js'),
      import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    ]);
    // The request passed the guard, so its origin names this sandbox; the token lets the tools' requests pass it too.
    const client = new ControlClient({
      url: new URL(c.req.url).origin,
      controlToken: deps.config.controlToken,
      fetch: async (url, init) => dispatch(new Request(url, init)),
    });
    const server = createMcpServer(client);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MAX_MESSAGE_BYTES,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });
  return app;
}

/** The route of this module, for /openapi.json. */
export const mcpOpenApi: OpenApiRoute[] = [
  controlRoute(
    'post',
    '/mcp',
    'The MCP server for coding agents (Streamable HTTP, stateless): the tools, resources and prompts of `sandbox mcp` (docs/mcp.md); send Accept: application/json, text/event-stream',
    'the JSON-RPC answer to the message (202 with no body for a notification); a message the MCP transport refuses (no Accept, not JSON-RPC) is a JSON-RPC error with a 4xx',
    { body: mcpMessageSchema, responseSchema: mcpAnswerView },
  ),
];
