// `sandbox encrypt` and `sandbox decrypt`: the sandbox's own cipher (docs/decisions.md scheme) on the
// command line, offline, so merchants can check their code's output against it byte for byte.
import type { Command } from 'commander';
import { buildEncryptedData, decryptText, encryptText, type TerminalKeys } from '../crypto/s2s-cipher.js';
import { readProcessStdin, type CliIo } from './io.js';

interface KeyFlags {
  publicKey: string;
  privateKey: string;
  json?: boolean;
}

/** The argument, or stdin without the one line ending that `echo` and editors add. */
async function inputText(io: CliIo, argument: string | undefined): Promise<string> {
  if (argument !== undefined) return argument;
  const text = await (io.readStdin ?? (() => readProcessStdin()))();
  return text.replace(/\r?\n$/, '');
}

/** Accepts what a merchant may paste: a raw ciphertext, `data=...` / `encrypted_data=...`, URL-encoded or not, with the public_key appended or not. */
export function ciphertextOf(text: string, publicKey: string): string {
  let value = text.trim();
  const field = /^(data|encrypted_data)=/.exec(value);
  if (field) value = new URLSearchParams(value).get(field[1]) ?? '';
  // base64 never contains '%', so a %XX escape means the value is still URL-encoded.
  else if (/%[0-9A-Fa-f]{2}/.test(value)) value = decodeURIComponent(value);
  return value.endsWith(publicKey) ? value.slice(0, value.length - publicKey.length) : value;
}

function keysOf(flags: KeyFlags): TerminalKeys {
  return { publicKey: flags.publicKey, privateKey: flags.privateKey };
}

/** Adds `sandbox encrypt` and `sandbox decrypt`. */
export function addCipherCommands(program: Command, io: CliIo): void {
  program
    .command('encrypt')
    .description('encrypt a query string the way /api/s2s/encrypt expects (offline; no sandbox needed)')
    .argument('[text]', 'the plaintext, e.g. "terNO=1001&bill_amt=10.00&..." (default: read stdin)')
    .requiredOption('--public-key <key>', 'the terminal public_key (derives the IV), e.g. pk_test_1001')
    .requiredOption('--private-key <key>', 'the terminal private_key (derives the key), e.g. pv_test_1001')
    .option('--encrypted-data', 'print the whole encrypted_data value: the ciphertext followed by the public_key')
    .option('--json', 'print {"ciphertext","encrypted_data"} as JSON')
    .action(async (text: string | undefined, flags: KeyFlags & { encryptedData?: boolean }) => {
      const plaintext = await inputText(io, text);
      const keys = keysOf(flags);
      const ciphertext = encryptText(plaintext, keys);
      if (flags.json) return io.out(JSON.stringify({ ciphertext, encrypted_data: buildEncryptedData(plaintext, keys) }));
      io.out(flags.encryptedData ? buildEncryptedData(plaintext, keys) : ciphertext);
    });

  program
    .command('decrypt')
    .description('decrypt an encrypted_data value or a webhook data parameter (offline; warnings go to stderr)')
    .argument('[text]', 'the ciphertext, encrypted_data, or data=... (default: read stdin)')
    .requiredOption('--public-key <key>', 'the terminal public_key (derives the IV), e.g. pk_test_1001')
    .requiredOption('--private-key <key>', 'the terminal private_key (derives the key), e.g. pv_test_1001')
    .option('--json', 'print {"plaintext","fields","warnings"} as JSON')
    .action(async (text: string | undefined, flags: KeyFlags) => {
      const cipherText = ciphertextOf(await inputText(io, text), flags.publicKey);
      const { plaintext, warnings } = decryptText(cipherText, keysOf(flags));
      if (flags.json) {
        return io.out(JSON.stringify({ plaintext, fields: Object.fromEntries(new URLSearchParams(plaintext)), warnings }));
      }
      for (const warning of warnings) io.err(`warning: ${warning}`);
      io.out(plaintext);
    });
}
