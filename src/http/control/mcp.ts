// POST /_sandbox/mcp: the MCP server of `sandbox mcp` over Streamable HTTP (stateless, JSON answers),
// on every running sandbox, behind the control guard like all of /_sandbox (loopback or the
// --control-token, loopback Hosts against DNS rebinding, no cross-site Origin): the MCP
// specification's security notes ask exactly that of a local server. Its tools send their control
// requests straight into this app (`dispatch`), through the same guard and routes as any client's.
// The SDK is loaded on the first request, never at start-up.
import { Hono } from 'hono';
import { ControlClient } from '../../client/control-client.js';
import { mcpMessageSchema } from '../../contracts/mcp-tools.js';
import { validJson } from '../validation.js';
import { bodyLimit } from '../middleware/body-limit.js';
import { SandboxError } from '../../errors.js';
import { mcpAnswerView } from '../../views/mcp-results.js';
import type { AppDeps, AppEnv } from '../app-env.js';
import type { OpenApiRoute } from '../openapi/route.js';
import { controlRoute } from './control-route.js';

/** The largest MCP message taken (the route sits ahead of the app's 1 MiB limit): a diagnose_signature body of 1 000 000 characters, escaped, fits. */
const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** POST /mcp under /_sandbox; `dispatch` answers a request as this app does (app.fetch). */
export function controlMcpRoutes(deps: AppDeps, dispatch: (request: Request) => Response | Promise<Response>) {
  const app = new Hono<AppEnv>();
  app.post(
    '/mcp',
    bodyLimit({
      maxSize: MAX_MESSAGE_BYTES,
      onError: () => {
        throw new SandboxError('body_too_large', `an MCP message is at most ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB; send a smaller one`);
      },
    }),
    async (c) => {
      // Checked here, so a body that is no JSON-RPC message gets the control API's own 400 naming the field.
      const message = await validJson(c, mcpMessageSchema);
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
      });
      await server.connect(transport);
      // Every answer here is JSON, so a client that does not also offer to read an event stream (curl) is answered all the same.
      const headers = new Headers(c.req.raw.headers);
      headers.set('accept', 'application/json, text/event-stream');
      try {
        return await transport.handleRequest(new Request(c.req.url, { method: 'POST', headers }), { parsedBody: message });
      } finally {
        await server.close();
      }
    },
  );
  return app;
}

/** The route of this module, for /openapi.json. */
export const mcpOpenApi: OpenApiRoute[] = [
  controlRoute(
    'post',
    '/mcp',
    'The MCP server for coding agents (Streamable HTTP, stateless, JSON answers): the tools, resources and prompts of `sandbox mcp` (docs/mcp.md)',
    "the JSON-RPC answer to the message (202 with no body for a notification); a body that is no JSON-RPC message is the control API's 400",
    { body: mcpMessageSchema, responseSchema: mcpAnswerView },
  ),
];
