// The package version, read once from package.json (sent as the webhook User-Agent and shown by --version).
import { readFileSync } from 'node:fs';

/** paysandbox's version. */
export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
