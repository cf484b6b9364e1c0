// Reading a certificate or key file: the ones a user names (--cert, --key, --webhook-ca) and the
// local CA's under .sandbox/tls/, which may come with a cloned folder. Only a regular file of at
// most MAX_PEM_BYTES is read: readFileSync waits forever on a FIFO with no writer and reads
// /dev/zero until memory runs out. The file is opened without blocking and judged by its own
// descriptor (fstat), so nothing can be swapped in between the check and the read.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { errorMessage } from '../errors.js';

/** The largest PEM file read: a certificate is 1-2 KiB, and a bundle of every public root CA about 200 KiB. */
export const MAX_PEM_BYTES = 1024 * 1024;

/** A file that cannot be read as a PEM file; the message says why, in words for a one-line refusal. */
export class UnreadablePemFile extends Error {}

/** Why opening failed, in words. */
function openProblem(err: NodeJS.ErrnoException): string {
  if (err.code === 'ENOENT') return 'no such file';
  if (err.code === 'EACCES' || err.code === 'EPERM') return 'no permission to read it';
  return err.message;
}

/** The text of the regular file at `path` (UTF-8), at most MAX_PEM_BYTES; throws UnreadablePemFile saying why not. */
export function readPemFile(path: string): string {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer (not defined on Windows, where it cannot happen).
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    throw new UnreadablePemFile(openProblem(err as NodeJS.ErrnoException));
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new UnreadablePemFile('it is a folder');
    if (!stat.isFile())
      throw new UnreadablePemFile('it is not a regular file (a FIFO, a device or a socket); give the path of the PEM file itself');
    // Up to one byte past the bound, whatever fstat said: a file that grows meanwhile is refused too.
    const buffer = Buffer.alloc(MAX_PEM_BYTES + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      length += read;
      if (read === 0 || length === buffer.length) break;
    }
    if (length > MAX_PEM_BYTES)
      throw new UnreadablePemFile(
        `it is larger than ${MAX_PEM_BYTES} bytes (1 MiB), far more than PEM certificates and keys take; give the PEM file itself`,
      );
    return buffer.toString('utf8', 0, length);
  } catch (err) {
    if (err instanceof UnreadablePemFile) throw err;
    throw new UnreadablePemFile(errorMessage(err));
  } finally {
    closeSync(fd);
  }
}
