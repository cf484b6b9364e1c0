// The docs test runs the pages' `npx sandbox ...` through a bash function instead of npm
// (doc-runner.ts, npxStandIn): these tests hold that function to what npx itself does in a project
// whose node_modules/.bin has the command: the same file, the same arguments (spaces and newlines
// kept), stdin, the project's bin first on PATH and the exit status; anything else goes to npx.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { npxStandIn } from './doc-runner.js';

const project = mkdtempSync(join(tmpdir(), 'paysandbox-npx-'));
/** A terminal's PATH: no node_modules/.bin of this checkout. */
const PATH = (process.env.PATH ?? '')
  .split(':')
  .filter((entry) => !entry.endsWith('node_modules/.bin'))
  .join(':');

/** What `command` prints and its status in bash in the project, with npx itself or the stand-in. */
function inProject(command: string, npx: 'real' | 'stand-in'): { stdout: string; stderr: string; status: number | null } {
  const script = `${npx === 'stand-in' ? npxStandIn(project) : ''}cd '${project}'\n${command}\n`;
  const run = spawnSync('bash', ['--noprofile', '--norc', '-c', script], {
    encoding: 'utf8',
    env: { ...process.env, PATH, npm_config_update_notifier: 'false', npm_config_offline: 'true' },
  });
  return { stdout: run.stdout, stderr: run.stderr, status: run.status };
}

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("the docs runner's npx stand-in", () => {
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'shop', version: '1.0.0', private: true }));
  mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
  for (const bin of ['sandbox', 'paysandbox']) {
    // What the program saw: the file it runs as, the first PATH entry, each argument, stdin; then a status of its own.
    const file = join(project, 'node_modules/.bin', bin);
    writeFileSync(
      file,
      `#!/bin/sh\nprintf '%s\\n' "$0" "\${PATH%%:*}" "$#"\nfor arg in "$@"; do printf '[%s]\\n' "$arg"; done\nprintf 'stdin: %s\\n' "$(cat)"\nexit 3\n`,
    );
    chmodSync(file, 0o755);
  }

  for (const bin of ['sandbox', 'paysandbox']) {
    it(`runs \`npx ${bin}\` as npx does: the project's bin, its folder first on PATH, the arguments, stdin and the exit status`, () => {
      const command = `printf 'a body' | npx ${bin} webhooks 'two words' "$(printf 'a\\nnewline')" --json; echo "status $?"`;
      const real = inProject(command, 'real');
      expect(real.stdout).toContain(`${project}/node_modules/.bin/${bin}\n${project}/node_modules/.bin\n4\n`);
      expect(real.stdout).toContain('status 3');
      expect(inProject(command, 'stand-in')).toEqual(real);
    }, 60_000);
  }

  it('leaves any other npx command to npx', () => {
    const other = inProject('type npx >/dev/null && npx --version', 'stand-in');
    expect(other.stdout).toBe(inProject('npx --version', 'real').stdout);
    expect(other.status).toBe(0);
  }, 60_000);
});
