// The package version, read once from package.json (sent as the webhook User-Agent and shown by --version).
import { readFileSync } from 'node:fs';
import { CODE_DIR } from './code-dir.js';

/** paysandbox's version. */
export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', CODE_DIR), 'utf8')).version;
