// Where a CLI command writes: every command module takes a CliIo (program.ts passes processIo; tests
// pass one that captures). It lives apart from program.ts, which imports every command module.

/** Where a command writes; tests capture it. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Exit code set by commands that fail without throwing (e.g. `sandbox wait`). */
  exitCode?: number;
  /** --json was asked for: errors go to stderr as one JSON object (execute() sets it). */
  json?: boolean;
}

/** Standard output and error of the process. */
export const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : text + '\n'),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : text + '\n'),
};
