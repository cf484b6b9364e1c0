// `sandbox mcp`: the MCP server (src/mcp/server.ts) on stdio, for a coding agent's client to start.
// Its tools talk to the sandbox at --url (SANDBOX_URL), or, with --start, to one it starts in this
// process for the session (in memory unless --db) and stops when the client goes away (stdin ends)
// or a signal comes. stdout carries the protocol alone: the sandbox it starts logs nothing.
// `sandbox mcp config --client NAME` prints (or --write writes) the client's project configuration.
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import type { RunningServer } from '../server/start-server.js';
import { ControlClient, sandboxOptions, type ClientFlags } from './control-client.js';
import type { CliIo } from './io.js';
import { addMcpConfigCommand } from './mcp-config.js';

/** The flags of `sandbox mcp`. */
type McpFlags = ClientFlags & { start?: boolean; db?: string };

/** Adds `sandbox mcp` and `sandbox mcp config`. */
export function addMcpCommand(program: Command, io: CliIo): void {
  const mcp = sandboxOptions(
    program
      .command('mcp')
      .description(
        'serve the MCP server for coding agents on stdio: tools that pay, authenticate, trigger, move time, inject faults, wait for and diagnose webhooks (docs/mcp.md)',
      ),
    'the sandbox its tools talk to',
  )
    .option('--start', 'start a sandbox in this process for the session (in memory unless --db) and stop it when the client goes away')
    .option('--db <file>', 'with --start: the database file of that sandbox (default: in memory)')
    .action((flags: McpFlags) => serveStdio(flags, io));
  addMcpConfigCommand(mcp, io);
}

/** Serves the MCP server on stdin/stdout until the client closes stdin (or a signal), then stops what it started. */
async function serveStdio(flags: McpFlags, io: CliIo): Promise<void> {
  // Loaded here, so no other command (and no `sandbox start`) loads the SDK.
  const [{ createMcpServer }, { StdioServerTransport }] = await Promise.all([
    import('../mcp/server.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  let running: RunningServer | undefined;
  if (flags.start) {
    const { startServer } = await import('../server/start-server.js');
    running = await startServer(loadConfig({ port: 0, db: flags.db ?? ':memory:', quiet: true }, {}));
    io.err(`sandbox mcp: started a sandbox for this session at ${running.url}`);
  } else if (flags.db !== undefined) {
    io.err('sandbox mcp: --db is for the sandbox --start makes; without --start it is ignored');
  }
  const client = new ControlClient({ url: running?.url ?? flags.url, controlToken: running ? undefined : flags.controlToken });
  const server = createMcpServer(client);
  const transport = new StdioServerTransport();
  const ended = new Promise<void>((resolve) => {
    // The client went away (its end of the pipe closed) or asked us to stop.
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    transport.onclose = resolve;
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, resolve);
  });
  await server.connect(transport);
  await ended;
  await server.close();
  await running?.close();
}
