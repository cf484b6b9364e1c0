// The flags of the CLI commands that talk to a running sandbox: --url (or SANDBOX_URL) picks the
// sandbox, --control-token (or SANDBOX_CONTROL_TOKEN) is sent as a bearer. The client itself is
// src/client/control-client.ts, which the MCP server's tools share; it is re-exported here for the commands.
import { Option, type Command } from 'commander';
import { CLIENT_ENV } from '../config.js';
import { DEFAULT_SANDBOX_URL } from '../client/control-client.js';

export { ControlClient, DEFAULT_SANDBOX_URL, type StreamEvent } from '../client/control-client.js';

/** The flags every client command takes. */
export interface ClientFlags {
  url: string;
  controlToken?: string;
  json?: boolean;
}

/** Adds --url and --control-token to a command (commander reads the env defaults; an empty variable counts as unset). */
export function sandboxOptions(command: Command, what = 'the sandbox to talk to'): Command {
  return command
    .addOption(new Option('--url <url>', what).env(CLIENT_ENV.url).default(DEFAULT_SANDBOX_URL))
    .addOption(
      new Option('--control-token <token>', 'bearer token, when the sandbox was started with --control-token').env(CLIENT_ENV.controlToken),
    );
}

/** Adds --url, --control-token and --json to a command. */
export function clientOptions(command: Command): Command {
  return sandboxOptions(command).option('--json', 'print JSON instead of text');
}
