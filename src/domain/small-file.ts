/**
 * Reading a small local file (a token, a CA bundle) with a bound: `/dev/zero`, a FIFO fed
 * without end or a planted huge file is refused at the bound instead of read into memory.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { UsageError } from './errors.js';

/** A file's text and its permission bits. */
export interface SmallFile {
  text: string;
  /** `st_mode & 0o777`. */
  mode: number;
}

/**
 * Reads `file` as UTF-8, at most `maxBytes` of it; `what` names it in the usage error ("token
 * file ./token") for a missing, unreadable or larger file, or a directory.
 */
export function readSmallFile(file: string, maxBytes: number, what: string): SmallFile {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new UsageError(`${what} is a directory`);
    const buffer = Buffer.alloc(maxBytes + 1);
    let size = 0;
    for (;;) {
      const read = readSync(fd, buffer, size, buffer.length - size, null);
      size += read;
      if (read === 0 || size > maxBytes) break;
    }
    if (size > maxBytes) throw new UsageError(`${what} is larger than ${maxBytes} bytes`);
    return { text: buffer.toString('utf8', 0, size), mode: stat.mode & 0o777 };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`cannot read ${what}: ${reason}`, { cause: error });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
