/**
 * libpq's password file (`PGPASSFILE`, else `~/.pgpass`), read on the main thread through the
 * `pgpass` package's parser and matcher, so that node-postgres never reads it itself (which
 * prints a DeprecationWarning on every connection) and a file with loose permissions is one
 * clear line instead of a password silently missing.
 */
import { statSync } from 'node:fs';
import {
  getFileName,
  isValidEntry,
  match,
  parseLine,
  type PgPassConnInfo,
} from 'pgpass/lib/helper.js';
import { UsageError } from '../../domain/index.js';
import { readSmallFile } from '../../domain/small-file.js';

/** The largest password file read, in bytes. */
export const MAX_PGPASS_FILE_BYTES = 1024 * 1024;

/** libpq's host for the lookup of a Unix-socket connection. */
const SOCKET_LOOKUP_HOST = 'localhost';

/**
 * The password the file holds for this connection, or undefined (no file, no matching line). A
 * file that group or others may access is a `UsageError` (libpq ignores such a file, and the
 * server's refusal would then name no cause).
 */
export function pgpassPassword(
  connection: PgPassConnInfo,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const file = getFileName(env);
  let mode: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new UsageError(`password file ${file} is not a plain file`);
    mode = stat.mode & 0o777;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return undefined;
  }
  if ((mode & 0o077) !== 0) {
    throw new UsageError(
      `password file ${file} has group or world access (mode ${mode.toString(8).padStart(4, '0')}): chmod 600 it`,
    );
  }
  const { text } = readSmallFile(file, MAX_PGPASS_FILE_BYTES, `password file ${file}`);
  const lookup = connection.host.startsWith('/')
    ? { ...connection, host: SOCKET_LOOKUP_HOST }
    : connection;
  for (const line of text.split(/\r?\n/)) {
    const entry = parseLine(line);
    if (entry && isValidEntry(entry) && match(lookup, entry)) return entry.password;
  }
  return undefined;
}
