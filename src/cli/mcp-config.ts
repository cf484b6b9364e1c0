// `sandbox mcp config --client claude|cursor|vscode|codex`: the block that tells a coding agent's
// client to start `sandbox mcp` (or, with --transport http, to reach /_sandbox/mcp of a running
// sandbox), printed; with --write, merged into the project's own file for that client (.mcp.json,
// .cursor/mcp.json, .vscode/mcp.json, .codex/config.toml), never a file in the home folder.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_SANDBOX_URL } from '../client/control-client.js';
import { orList } from '../domain/vocabularies.js';
import { errorMessage } from '../errors.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';

/** The clients `mcp config` knows. */
export const MCP_CLIENTS = ['claude', 'cursor', 'vscode', 'codex'] as const;

/** One of MCP_CLIENTS. */
export type McpClient = (typeof MCP_CLIENTS)[number];

/** How the client reaches the server: it starts `sandbox mcp` (stdio), or it calls /_sandbox/mcp (http). */
type Transport = 'stdio' | 'http';

/** What the server entry says: the command and its arguments, or the URL. */
interface ServerEntry {
  transport: Transport;
  args: string[];
  url: string;
}

/** Each client's project file and what it is called. */
const CLIENT_FILES: Record<McpClient, { file: string; name: string }> = {
  claude: { file: '.mcp.json', name: 'Claude Code' },
  cursor: { file: '.cursor/mcp.json', name: 'Cursor' },
  vscode: { file: '.vscode/mcp.json', name: 'VS Code' },
  codex: { file: '.codex/config.toml', name: 'Codex (a trusted project)' },
};

/** The server's name in every client's file. */
const NAME = 'paysandbox';

/** The JSON server entry of a client. */
function jsonEntry(client: Exclude<McpClient, 'codex'>, entry: ServerEntry): Record<string, unknown> {
  if (entry.transport === 'http') return client === 'cursor' ? { url: entry.url } : { type: 'http', url: entry.url };
  return client === 'cursor' ? { command: 'npx', args: entry.args } : { type: 'stdio', command: 'npx', args: entry.args };
}

/** Codex's TOML table of the server. */
function tomlTable(entry: ServerEntry): string {
  const body =
    entry.transport === 'http'
      ? `url = ${JSON.stringify(entry.url)}`
      : `command = "npx"\nargs = [${entry.args.map((arg) => JSON.stringify(arg)).join(', ')}]`;
  return `[mcp_servers.${NAME}]\n${body}\n`;
}

/** The servers object of a client's JSON file: VS Code calls it "servers", the others "mcpServers". */
const serversKey = (client: McpClient) => (client === 'vscode' ? 'servers' : 'mcpServers');

/** The whole configuration block for `client`, as its project file holds it (a fresh file). */
export function configBlock(client: McpClient, entry: ServerEntry): string {
  if (client === 'codex') return tomlTable(entry);
  return `${JSON.stringify({ [serversKey(client)]: { [NAME]: jsonEntry(client, entry) } }, null, 2)}\n`;
}

/** `existing` with the server's entry put in (replacing an older one), for --write. */
function merged(client: McpClient, existing: string, entry: ServerEntry, file: string): string {
  if (client === 'codex') {
    // The table of the server runs from its header to the next table's header.
    const table = new RegExp(`^\\[mcp_servers\\.${NAME}\\][^]*?(?=^\\[|(?![^]))`, 'm');
    if (table.test(existing)) return existing.replace(table, tomlTable(entry));
    return `${existing}${existing === '' || existing.endsWith('\n\n') ? '' : existing.endsWith('\n') ? '\n' : '\n\n'}${tomlTable(entry)}`;
  }
  let doc: Record<string, unknown>;
  try {
    doc = existing.trim() === '' ? {} : (JSON.parse(existing) as Record<string, unknown>);
  } catch (err) {
    throw new CliError(`${file} is not JSON (${errorMessage(err)}); fix it or remove it, then run this again`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw new CliError(`${file} does not hold a JSON object; fix it or remove it`);
  const key = serversKey(client);
  const servers = (doc[key] ?? {}) as Record<string, unknown>;
  return `${JSON.stringify({ ...doc, [key]: { ...servers, [NAME]: jsonEntry(client, entry) } }, null, 2)}\n`;
}

/** The flags of `sandbox mcp config`. */
interface ConfigFlags {
  client?: string;
  write?: boolean;
  transport: string;
  start?: boolean;
  json?: boolean;
}

/** Adds `sandbox mcp config` under `sandbox mcp`. */
export function addMcpConfigCommand(mcp: Command, io: CliIo): void {
  mcp
    .command('config')
    .description(
      "print the configuration block that starts `sandbox mcp` from a coding agent's client; --write puts it in the project's file",
    )
    .requiredOption('--client <name>', `the agent's client: ${orList(MCP_CLIENTS)}`)
    .option('--write', "write it into the project's file for that client (merged with what is there), never a file in the home folder")
    .option(
      '--transport <kind>',
      'stdio (the client starts sandbox mcp) or http (the client calls /_sandbox/mcp of a running sandbox)',
      'stdio',
    )
    .option('--start', 'the server starts a sandbox of its own for each session (sandbox mcp --start)')
    .option('--json', 'print {client, file, transport, config} as JSON')
    .action((_flags: ConfigFlags, command: Command) => {
      // --url, --start and --json are options of `sandbox mcp` too, which takes them wherever they stand.
      const flags = command.optsWithGlobals<ConfigFlags & { url?: string }>();
      const client = flags.client as McpClient;
      if (!MCP_CLIENTS.includes(client)) throw new CliError(`--client must be ${orList(MCP_CLIENTS)}, got "${flags.client}"`);
      if (flags.transport !== 'stdio' && flags.transport !== 'http')
        throw new CliError(`--transport must be stdio or http, got "${flags.transport}"`);
      if (flags.transport === 'http' && flags.start)
        throw new CliError('--start is for --transport stdio: over http the client reaches a sandbox already running');
      // A sandbox elsewhere than the default (--url, SANDBOX_URL) is passed on.
      const url = flags.url ?? DEFAULT_SANDBOX_URL;
      const args = ['paysandbox', 'mcp', ...(flags.start ? ['--start'] : url !== DEFAULT_SANDBOX_URL ? ['--url', url] : [])];
      const entry: ServerEntry = { transport: flags.transport, args, url: `${url.replace(/\/+$/, '')}/_sandbox/mcp` };
      const { file, name } = CLIENT_FILES[client];
      const block = configBlock(client, entry);
      if (flags.write) {
        const existing = existsSync(file) ? readFileSync(file, 'utf8') : '';
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, merged(client, existing, entry, file));
      }
      if (flags.json) {
        const config = client === 'codex' ? block : JSON.parse(block);
        io.out(JSON.stringify({ client, file, transport: entry.transport, written: Boolean(flags.write), config }, null, 2));
        return;
      }
      io.out(flags.write ? `wrote the ${NAME} server into ${file} (${name})` : `# ${file} (${name})\n${block.trimEnd()}`);
    });
}
