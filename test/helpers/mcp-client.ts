// The MCP SDK's own client, connected to the sandbox's MCP server over Streamable HTTP
// (/_sandbox/mcp) or stdio (`sandbox mcp`), and the rehearsal every transport must carry through
// with the tools alone: a merchant of its own, a 3-D Secure payment, its authentication, the
// webhook waited for and shown, a re-serialised body diagnosed, the merchant reset and deleted.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { BIN } from './cli-sandbox.js';

/** A client of the sandbox's MCP server at `url` (a sandbox's base URL) over Streamable HTTP. */
export async function httpMcpClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'paysandbox-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/_sandbox/mcp`), { requestInit: { headers } }));
  return client;
}

/** A client of `sandbox mcp ...args` (the built CLI) over stdio; `transport.pid` is the server's process. */
export async function stdioMcpClient(args: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'paysandbox-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

/** The text summary of a tool's answer. */
export function textOf(result: CallToolResult): string {
  const [first] = result.content;
  return first?.type === 'text' ? first.text : '';
}

/** The text of a resource read with readResource (its first content). */
export function resourceText(result: { contents: Array<object> }): string {
  const [first] = result.contents;
  return first && 'text' in first && typeof first.text === 'string' ? first.text : '';
}

/** Calls a tool that must succeed; answers its structured content (the summary fails the test when it did not). */
export async function callOk<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
  expect(textOf(result)).not.toBe('');
  return result.structuredContent as T;
}

/** Calls a tool that must fail: answers the tool error's message. */
export async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name} should have failed: ${textOf(result)}`).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return textOf(result);
}

/** The rehearsal through tools alone: what each step answered. `webhookUrl` is a handler that answers 200. */
export async function rehearse(client: Client, webhookUrl: string) {
  const merchant = await callOk<{ id: string; webhook_secret: string }>(client, 'create_merchant', { name: 'agent rehearsal' });
  const payment = await callOk<{ id: string; status: string; authentication_url: string | null }>(client, 'create_payment', {
    merchant: merchant.id,
    card: '4000000000003220',
    webhook_url: webhookUrl,
  });
  expect(payment.status).toBe('requires_action');
  expect(payment.authentication_url).toMatch(/\/authenticate\//);
  const authenticated = await callOk<{ authentication: string; status: string }>(client, 'authenticate', {
    id: payment.id,
    outcome: 'approve',
  });
  expect(authenticated.authentication).toBe('passed');
  const waited = await callOk<{ delivery: { id: string; status: string; event: string } }>(client, 'wait_for_delivery', {
    payment: payment.id,
    event: 'payment.authorized',
    url: webhookUrl,
    timeout: '30s',
  });
  expect(waited.delivery.status).toBe('succeeded');
  const shown = await callOk<{
    request: { headers: Record<string, string>; body: string };
    attempt_log: Array<{ response_status: number }>;
  }>(client, 'show_delivery', { id: waited.delivery.id });
  expect(shown.attempt_log[0]?.response_status).toBe(200);
  // What a framework that parses and prints the JSON again hands the handler.
  const reserialised = JSON.stringify(JSON.parse(shown.request.body), null, 4);
  const diagnosis = await callOk<{ valid: boolean; cause: string }>(client, 'diagnose_signature', {
    headers: shown.request.headers,
    body: reserialised,
    secret: merchant.webhook_secret,
  });
  expect(diagnosis).toMatchObject({ valid: false, cause: 'json_reserialized' });
  const reset = await callOk<{ merchant: string; removed: Record<string, number> }>(client, 'reset', { merchant: merchant.id });
  expect(reset.removed.payments).toBe(1);
  expect(reset.removed.webhook_deliveries ?? reset.removed.deliveries).toBeGreaterThan(0);
  await callOk(client, 'delete_merchant', { id: merchant.id });
  return { merchant, payment, delivery: waited.delivery };
}
