// Where a CLI command writes and reads: every command module takes a CliIo (program.ts passes processIo; tests
// pass one that captures). It lives apart from program.ts, which imports every command module.
import { CliError } from './cli-error.js';

/** Where a command writes; tests capture it. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Exit code set by commands that fail without throwing (e.g. `sandbox wait`). */
  exitCode?: number;
  /** --json was asked for: errors go to stderr as one JSON object (execute() sets it). */
  json?: boolean;
  /** Where standard input comes from (tests pass text; the default reads process.stdin). */
  readStdin?(): Promise<string>;
}

/** Standard output and error of the process. */
export const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

/** All of standard input as UTF-8 text; `missing` is the error when it is a terminal (nothing piped). */
export async function readProcessStdin(missing = 'no text: give it as an argument or pipe it on stdin'): Promise<string> {
  if (process.stdin.isTTY) throw new CliError(missing);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
