/**
 * A command's standard input and output as files (`-`): `--body -` read whole within a bound,
 * `--out -` and `--html -` written in chunks.
 */
import { writeSync } from 'node:fs';
import { UsageError } from '../domain/index.js';
import { EXIT_OK } from './exit.js';

/** Text gathered before one write to standard output, in characters. */
export const STDOUT_CHUNK_CHARS = 64 * 1024;

/**
 * Writes `pieces` to standard output synchronously, so that a large export streams without
 * being held whole. A reader that has gone (`| head`) ends the command quietly, exit 0.
 */
export async function writePiecesToStdout(
  pieces: Iterable<string> | AsyncIterable<string>,
): Promise<void> {
  let buffer = '';
  const flush = () => {
    try {
      writeAll(buffer);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EPIPE') process.exit(EXIT_OK);
      throw error;
    }
    buffer = '';
  };
  for await (const piece of pieces) {
    buffer += piece;
    if (buffer.length >= STDOUT_CHUNK_CHARS) flush();
  }
  flush();
}

/** writeSync until every byte is out (a pipe may take part of a write; EAGAIN is retried). */
function writeAll(text: string): void {
  let bytes = Buffer.from(text, 'utf8');
  while (bytes.length > 0) {
    try {
      const written = writeSync(1, bytes);
      bytes = bytes.subarray(written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    }
  }
}

/**
 * Reads standard input to its end as UTF-8, at most `maxBytes` (more is a usage error naming
 * `what`): a pipe, a file or a socket alike.
 */
export async function readStdin(maxBytes: number, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      process.stdin.destroy();
      throw new UsageError(`${what} is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
