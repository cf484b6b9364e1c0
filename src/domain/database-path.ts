// Where the database may go: a rule about paths, given a way to ask whether a folder exists (config.ts
// passes existsSync), so config, which only imports domain rules, can check --db before anything opens it.
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * Why the database cannot go at `path`: a missing folder is created only under the working
 * directory (the default .sandbox/); anywhere else it must exist, so a mistyped --db such as
 * /tmp/sandox/x.db is refused instead of leaving new folders around the disk.
 */
export function databaseFolderProblem(path: string, cwd: string, folderExists: (folder: string) => boolean): string | undefined {
  if (path === ':memory:') return undefined;
  const folder = dirname(resolve(cwd, path));
  if (folderExists(folder)) return undefined;
  const fromCwd = relative(cwd, folder);
  if (fromCwd !== '..' && !fromCwd.startsWith(`..${sep}`) && !isAbsolute(fromCwd)) return undefined;
  return `is "${path}", in a folder that does not exist (${folder}); create that folder first, or give a path under the working directory (${cwd}), where missing folders are created`;
}
