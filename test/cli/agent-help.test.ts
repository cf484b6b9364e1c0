// Every --help ends with the one line an agent needs: the command's --json form with the arguments
// it takes (a group: the way to its commands; start, stop, mcp and the program: their own line).
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { runCli } from '../helpers/cli-harness.js';

/** Every command's path under `sandbox`, and the command. */
function commands(command: Command, path: string[] = []): Array<[string, Command]> {
  return command.commands.flatMap((sub) => [
    [[...path, sub.name()].join(' '), sub] as [string, Command],
    ...commands(sub, [...path, sub.name()]),
  ]);
}

const ALL = commands(buildProgram());

describe('sandbox --help for agents', () => {
  it('covers every command', () => {
    expect(ALL.length).toBeGreaterThan(30);
  });

  it.each(ALL)('sandbox %s --help ends with its line for agents', async (path, command) => {
    const { out } = await runCli([...path.split(' '), '--help']);
    const last = out.trimEnd().split('\n').at(-1)!;
    expect(last).toMatch(/^For agents: /);
    const json = [command, command.parent].some((c) => c?.options.some((o) => o.long === '--json'));
    if (json && command.commands.length === 0 && path !== 'mcp') {
      const args = command.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`));
      expect(last).toBe(`For agents: ${['sandbox', ...path.split(' '), ...args].join(' ')} --json`);
    }
  });

  it('sandbox --help ends with the way to JSON and to the MCP server', async () => {
    const { out } = await runCli(['--help']);
    expect(out.trimEnd().split('\n').at(-1)).toBe(
      'For agents: every command prints JSON with --json (errors as one JSON object on stderr); `sandbox mcp` serves MCP tools (docs/mcp.md); llms.txt has the rest',
    );
  });
});
