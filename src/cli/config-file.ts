/**
 * The `--config` file: read and checked before anything runs, so that each way it can be wrong
 * is a usage error (exit 2) naming the file and the cause: missing, unreadable, not JSON (with
 * line and column), not an object, an unknown key, or a value of the wrong type.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { parse as locateJson, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { UsageError } from '../domain/index.js';
import type { CommonOption } from './common-options.js';

/** A config file larger than this is refused unread (it holds a few URLs). */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

/** What each errno means, in the words an operator would look for. */
const ERRNO_WORDS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
  ELOOP: 'too many symbolic links',
  ENOTDIR: 'a path component is not a directory',
};

/** Reads a config file and checks it against the options it may set, keyed by flag name. */
export function readConfigFile(
  file: string,
  options: Readonly<Record<string, CommonOption>>,
): Record<string, unknown> {
  const fail = (cause: string) => new UsageError(`config file ${file}: ${cause}`);
  const value = parseJson(readText(file, fail), fail);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw fail(`must hold a JSON object, not ${describe(value)}`);
  }
  const config: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'token') {
      throw fail('a token in the config file is refused; put it in a file named by token-file');
    }
    const option = options[key];
    if (option === undefined) throw fail(`unknown key ${JSON.stringify(key)}`);
    if (!hasType(entry, option.json)) {
      throw fail(`${JSON.stringify(key)} must be ${article(option.json)}, not ${describe(entry)}`);
    }
    config[key] = entry;
  }
  return config;
}

function readText(file: string, fail: (cause: string) => UsageError): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw fail(`cannot read: ${errnoText(error)}`);
  }
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_CONFIG_FILE_BYTES) {
      throw fail(`${size} bytes, more than ${MAX_CONFIG_FILE_BYTES} for a config file`);
    }
    // A device or a pipe has no size: read at most one byte past the bound, whatever fstat said.
    const buffer = Buffer.alloc(MAX_CONFIG_FILE_BYTES + 1);
    let read = 0;
    for (;;) {
      const n = readSync(fd, buffer, read, buffer.length - read, null);
      read += n;
      if (n === 0 || read > MAX_CONFIG_FILE_BYTES) break;
    }
    if (read > MAX_CONFIG_FILE_BYTES) {
      throw fail(`more than ${MAX_CONFIG_FILE_BYTES} bytes for a config file`);
    }
    return buffer.subarray(0, read).toString('utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw fail(`cannot read: ${errnoText(error)}`);
  } finally {
    closeSync(fd);
  }
}

function errnoText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
  const words = ERRNO_WORDS[code];
  return words === undefined ? code : `${code} (${words})`;
}

/** JSON.parse, with the first syntax error's line and column when it fails. */
function parseJson(text: string, fail: (cause: string) => UsageError): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const errors: ParseError[] = [];
    locateJson(text, errors, { disallowComments: true, allowTrailingComma: false });
    const first = errors[0];
    if (first === undefined) throw fail(`invalid JSON: ${(error as Error).message}`);
    const { line, column } = lineAndColumn(text, first.offset);
    throw fail(
      `invalid JSON at line ${line} column ${column}: ${printParseErrorCode(first.error)}`,
    );
  }
}

/** 1-based line and column of a character offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

function hasType(value: unknown, type: CommonOption['json']): boolean {
  if (type === 'number') return typeof value === 'number' && Number.isFinite(value);
  if (type === 'array') return Array.isArray(value);
  if (type === 'object')
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  return typeof value === 'string';
}

function article(type: CommonOption['json']): string {
  return type === 'object' || type === 'array' ? `an ${type}` : `a ${type}`;
}

/** A value as an error line shows it: short JSON, or its kind. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 60)}...` : text;
}
