// The `sandbox` command: buildProgram() assembles every command group; run() is what bin/ calls.
// Errors a user can fix print one line and exit 1, never a stack trace. The package installs the
// one bin under two names: `paysandbox` (the package's name, so `npx paysandbox` finds it from
// anywhere) and `sandbox` (short, inside a project that has paysandbox installed; outside one,
// `npx sandbox` would fetch an unrelated registry package of that name).
import { basename } from 'node:path';
import { Command, CommanderError } from 'commander';
import kleur from 'kleur';
import { VERSION } from '../version.js';
import { SandboxError } from '../errors.js';
import { StartError } from '../errors.js';
import { unknownVariableWarnings } from './env-warnings.js';
import { addStartCommand } from './start.js';
import { addStopCommand } from './stop.js';
import { addCipherCommands } from './cipher.js';
import { addWebhooksCommand } from './webhooks.js';
import { addFaultsCommand } from './faults.js';
import { addListenCommand } from './listen.js';
import { addReceiveCommand } from './receive.js';
import { addClockCommand } from './clock.js';
import { addWaitCommand } from './wait.js';
import { addSnapshotCommands } from './snapshot.js';
import { addChargebackCommand } from './chargeback.js';
import { addSettleCommand } from './settle.js';
import { addTriggerCommand } from './trigger.js';
import { addAuthenticateCommand } from './authenticate.js';
import { addMerchantsCommand } from './merchants.js';
import { addAuditWebhooksCommand } from './audit-webhooks.js';
import { addVerifyCommand } from './verify.js';
import { addSendCommand } from './send.js';
import { addRequestsCommand } from './requests.js';
import { addTokensCommand } from './tokens.js';
import { addHealthCommand } from './health.js';
import { addMcpCommand } from './mcp.js';
import { errorBody, jsonRequested } from './cli-error.js';
import { ClientError } from '../client/client-error.js';
import { processIo, type CliIo } from './io.js';
import { terminalJson, terminalLines } from './terminal-text.js';

/** The name the CLI was run by (`paysandbox` or `sandbox`), for its usage lines and error prefix. */
export function invokedName(argv: string[]): string {
  return basename(argv[1] ?? '').replace(/\.js$/, '') === 'paysandbox' ? 'paysandbox' : 'sandbox';
}

/** Builds the commander program with every command, named as it was run. */
export function buildProgram(io: CliIo = processIo, name = 'sandbox'): Command {
  const program = new Command(name)
    .description('paysandbox: the payment gateway sandbox on your laptop and in CI')
    .version(VERSION, '-v, --version')
    .configureOutput({
      writeOut: (s) => io.out(s),
      writeErr: (s) => io.err(s),
      // commander's "error: ..." plus a hint line becomes one line, like every other CLI error.
      outputError: (text, write) => {
        const message = `${text.replace(/^error: /, '').trim()} (see ${name} --help)`;
        write(io.json ? `${JSON.stringify({ error: { code: 'usage', message } })}\n` : `${name}: ${message}\n`);
      },
    })
    .exitOverride()
    .hook('preAction', (_program, action) => emptyVariablesUnset(action));
  addStartCommand(program, io);
  addStopCommand(program, io);
  addCipherCommands(program, io);
  addWebhooksCommand(program, io);
  addFaultsCommand(program, io);
  addListenCommand(program, io);
  addReceiveCommand(program, io);
  addClockCommand(program, io);
  addWaitCommand(program, io);
  addSnapshotCommands(program, io);
  addChargebackCommand(program, io);
  addSettleCommand(program, io);
  addTriggerCommand(program, io);
  addAuthenticateCommand(program, io);
  addMerchantsCommand(program, io);
  addAuditWebhooksCommand(program, io);
  addVerifyCommand(program, io);
  addSendCommand(program, io);
  addRequestsCommand(program, io);
  addTokensCommand(program, io);
  addHealthCommand(program, io);
  addMcpCommand(program, io);
  addAgentLines(program, [name]);
  return program;
}

/** The last line of --help where the command's --json form is not the line an agent needs (by command path). */
const AGENT_LINES: Record<string, (name: string) => string> = {
  '': (name) =>
    `every command prints JSON with --json (errors as one JSON object on stderr); \`${name} mcp\` serves MCP tools (docs/mcp.md); llms.txt has the rest`,
  start: (name) =>
    `start it in the background with --ready-file FILE, then \`${name} wait --ready-file FILE --json\` prints {"url": ...} once it answers`,
  stop: (name) => `\`${name} stop\` exits 0 once the sandbox has stopped, 1 (saying why on stderr) when none was running`,
  mcp: (name) => `\`${name} mcp config --client claude|cursor|vscode|codex --write\` adds this server to your client's project file`,
};

/**
 * Ends every command's --help with the one line an agent needs: the command's --json form (the
 * arguments it takes included), a group's way to its commands, or AGENT_LINES' line.
 */
function addAgentLines(command: Command, path: readonly [string, ...string[]]): void {
  for (const sub of command.commands) addAgentLines(sub, [...path, sub.name()]);
  const [name, ...rest] = path;
  const args = command.registeredArguments.map((arg) => (arg.required ? `<${arg.name()}>` : `[${arg.name()}]`));
  const own = AGENT_LINES[rest.join(' ')];
  const line = own
    ? own(name)
    : command.commands.length > 0 && !command.options.some((o) => o.long === '--json')
      ? `${path.join(' ')} <command> --json: each of its commands prints JSON`
      : `${[...path, ...args].join(' ')} --json`;
  command.addHelpText('after', `\nFor agents: ${line}`);
}

/**
 * An empty SANDBOX_URL or SANDBOX_CONTROL_TOKEN counts as unset, as every SANDBOX_* variable of
 * `sandbox start` does (CI templates export SANDBOX_X= with nothing after it): commander would
 * take the empty text as the value.
 */
function emptyVariablesUnset(action: Command): void {
  for (let command: Command | null = action; command; command = command.parent) {
    for (const option of command.options) {
      const key = option.attributeName();
      if (option.envVar && command.getOptionValueSource(key) === 'env' && command.getOptionValue(key) === '')
        command.setOptionValueWithSource(key, option.defaultValue, 'default');
    }
  }
}

/** A user error's one-line message, or undefined for a bug. */
export function userErrorMessage(err: unknown): string | undefined {
  if (err instanceof StartError || err instanceof SandboxError) return err.message;
  if (err instanceof Error && (err as NodeJS.ErrnoException).code === 'ECONNREFUSED') return err.message;
  if (err instanceof ClientError) return err.message;
  return undefined;
}

/**
 * Runs `sandbox <argv>` with its output in `io` and answers the exit code: a user error is one
 * line on stderr (one JSON object with --json), exit 1; a bug is thrown.
 */
export async function execute(argv: string[], io: CliIo = processIo): Promise<number> {
  io.json = jsonRequested(argv.slice(2));
  const name = invokedName(argv);
  for (const warning of unknownVariableWarnings())
    io.err(
      io.json ? JSON.stringify({ warning: { code: 'unknown_variable', message: warning } }) : kleur.yellow(`${name}: warning: ${warning}`),
    );
  const program = buildProgram(io, name);
  try {
    await program.parseAsync(argv);
    return io.exitCode ?? 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    const message = userErrorMessage(err);
    if (message === undefined) throw err;
    // A sandbox's error message may quote what a request sent it: escaped (terminal-text.ts).
    io.err(io.json ? terminalJson({ error: errorBody(err, message) }) : kleur.red(`${name}: ${terminalLines(message)}`));
    return 1;
  }
}

/** Runs the CLI with process.argv; sets the exit code. */
export async function run(argv: string[], io: CliIo = processIo): Promise<void> {
  // `sandbox webhooks list | head`: the reader went away, which is not an error of ours.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  process.exitCode = await execute(argv, io);
}
