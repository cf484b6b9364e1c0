// `sandbox verify`: why a webhook's signature check fails, from the raw body and the headers your
// handler received (and the secret it verified with), asked of the sandbox that sent it
// (POST /_sandbox/signatures/diagnose). Exit 0 only when the signature is valid.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import kleur from 'kleur';
import type { SignatureDiagnosisView } from '../views/signature-diagnosis.js';
import { readProcessStdin, type CliIo } from './io.js';
import { CliError } from './cli-error.js';
import { ControlClient, clientOptions, type ClientFlags } from './control-client.js';
import { terminalJson, terminalText } from './terminal-text.js';
import { errorMessage } from '../errors.js';

interface VerifyFlags extends ClientFlags {
  body?: string;
  header: string[];
  secret?: string;
}

/** The --header values as the diagnosis takes them: names in lower case, a header given twice as a list. */
export function parseHeaders(lines: readonly string[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    if (colon < 0 || name === '')
      throw new CliError(
        `--header ${JSON.stringify(line)} is not "Name: value"; give one header per --header, e.g. --header "X-Sandbox-Signature: sha256=..."`,
      );
    const value = line.slice(colon + 1).trim();
    const before = headers[name];
    headers[name] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  return headers;
}

/** The --body file as text, byte for byte, or standard input without one or with `-` (verify's, send's). */
export async function bodyOf(file: string | undefined, io: CliIo): Promise<string> {
  if (file === undefined || file === '-')
    return (io.readStdin ?? (() => readProcessStdin('no body: give --body FILE or pipe the body on stdin')))();
  try {
    return readFileSync(file).toString('utf8');
  } catch (err) {
    throw new CliError(
      `--body ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}): give the file the raw body is in`,
    );
  }
}

/** Adds `sandbox verify`. */
export function addVerifyCommand(program: Command, io: CliIo): void {
  clientOptions(
    program
      .command('verify')
      .description(
        "why a webhook's signature check fails: the raw body and headers your handler received, checked by the sandbox that sent them",
      ),
  )
    .option('--body <file>', 'the file holding the raw body, byte for byte (default: standard input)')
    .option(
      '--header <header>',
      '"Name: value" of a header your handler received; repeat it for each',
      (value: string, all: string[]) => [...all, value],
      [],
    )
    .option('--secret <secret>', 'the secret your handler verifies with, exactly as it reads it')
    .action(async (flags: VerifyFlags) => {
      const headers = parseHeaders(flags.header);
      const body = await bodyOf(flags.body, io);
      const answer = await new ControlClient(flags).post<SignatureDiagnosisView>('/signatures/diagnose', {
        headers,
        body,
        ...(flags.secret === undefined ? {} : { secret: flags.secret }),
      });
      // The message quotes the body it was given, which may hold a forger's control characters (terminal-text.ts).
      const message = terminalText(answer.message);
      if (flags.json) io.out(terminalJson(answer, 2));
      else if (answer.valid) io.out(message.replace(/^signature valid/, kleur.green('signature valid')));
      else io.out(`${kleur.red('signature INVALID')} (${answer.cause}): ${message}`);
      if (!answer.valid) io.exitCode = 1;
    });
}
