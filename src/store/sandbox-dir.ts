// The folders the sandbox writes into (its database, --pid-file, --ready-file). The default one,
// .sandbox/ in the merchant's project, holds a database and process files nobody should commit,
// so the sandbox that creates it also writes a .gitignore there that ignores everything.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The folder of the default database and pid file, relative to the working directory. */
export const SANDBOX_DIR = '.sandbox';

/**
 * Creates `dir` and its missing parents one level at a time; a `.sandbox` folder it creates gets a
 * .gitignore of `*`. Node 20's mkdirSync({recursive: true}) spins forever under /proc (e.g.
 * --db /proc/nope/x.db); this fails with one clear error instead.
 */
export function ensureDirectory(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) ensureDirectory(parent);
  try {
    mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return;
  }
  // Only a folder made here: a .sandbox/ the merchant made (or whose .gitignore they removed) is theirs.
  if (basename(dir) === SANDBOX_DIR)
    writeFileSync(join(dir, '.gitignore'), '# Written by paysandbox: the sandbox database and process files are not for git.\n*\n');
}
