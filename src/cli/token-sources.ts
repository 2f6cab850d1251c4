/**
 * Where the tokens come from, first source that gives any: `--token-file` (repeatable) or
 * `PROJMIRROR_TOKEN_FILE` (files separated by `:`), `PROJMIRROR_TOKEN` (one token), the config
 * file's `token-file` and `token-files` (with labels and scopes), and under systemd every
 * credential `projmirror-token` or `projmirror-token.<label>` in `$CREDENTIALS_DIRECTORY`. Each
 * token gets a label (from its file name, or the config), which logs, `status` and metrics show;
 * the token itself never is, and is never accepted as a flag.
 */
import { readdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { UsageError } from '../domain/index.js';
import { readSmallFile } from '../domain/small-file.js';
import {
  checkTokenLabel,
  checkTokenSet,
  DEFAULT_TOKEN_LABEL,
  TOKEN_PREFIX,
  type TokenCredential,
  type TokenScope,
} from '../tokens/index.js';

/** The systemd credential of the token; `projmirror-token.<label>` names one of several. */
export const CREDENTIAL_NAME = 'projmirror-token';
/** The largest token file read, in bytes (a token is well under 100). */
export const MAX_TOKEN_FILE_BYTES = 4 * 1024;

/** Writes a warning line on stderr. */
function warnOnStderr(line: string): void {
  process.stderr.write(`projmirror: warning: ${line}\n`);
}

/** The parsed options the tokens are read from. */
export interface TokenArgs {
  /** `--token-file` or `PROJMIRROR_TOKEN_FILE`: one path, several, or paths joined by `:`. */
  tokenFile?: unknown;
  /** The config file's `token-file`. */
  configTokenFile?: unknown;
  /** The config file's `token-files`. */
  tokenFiles?: unknown;
}

/** One token file to read, with the label and scope the config gives it, if any. */
interface TokenFileEntry {
  file: string;
  label?: string | undefined;
  scope?: TokenScope | undefined;
}

/** Reads every configured token, labelled and checked; see the module comment. */
export function readTokens(
  args: TokenArgs,
  env: NodeJS.ProcessEnv = process.env,
  warn: (line: string) => void = warnOnStderr,
): TokenCredential[] {
  const files = pathList(args.tokenFile);
  let tokens: TokenCredential[];
  if (files.length > 0) {
    tokens = files.map((file) => fromFile({ file }, warn));
  } else if (env['PROJMIRROR_TOKEN']) {
    tokens = [
      {
        label: DEFAULT_TOKEN_LABEL,
        secret: checkSecret(env['PROJMIRROR_TOKEN'], 'PROJMIRROR_TOKEN'),
      },
    ];
  } else if (args.configTokenFile !== undefined || args.tokenFiles !== undefined) {
    tokens = configEntries(args).map((entry) => fromFile(entry, warn));
  } else if (env['CREDENTIALS_DIRECTORY']) {
    tokens = credentials(env['CREDENTIALS_DIRECTORY'], warn);
  } else {
    throw new UsageError(
      'no token: pass --token-file FILE, or set PROJMIRROR_TOKEN or PROJMIRROR_TOKEN_FILE',
    );
  }
  checkTokenSet(tokens);
  return tokens;
}

/**
 * Reads one token (a file, else `PROJMIRROR_TOKEN`, else the systemd credential), for callers
 * that take exactly one. A file that others may read is used with a warning naming its mode.
 */
export function readToken(
  tokenFile: unknown,
  env: NodeJS.ProcessEnv = process.env,
  warn: (line: string) => void = warnOnStderr,
): string {
  const tokens = readTokens({ tokenFile }, env, warn);
  return (tokens[0] as TokenCredential).secret;
}

/** The label a token file's name gives: `projmirror-token.client` → `client`, `team.token` → `team`. */
export function labelOfFile(file: string): string {
  const name = basename(file);
  if (name === CREDENTIAL_NAME) return DEFAULT_TOKEN_LABEL;
  if (name.startsWith(`${CREDENTIAL_NAME}.`)) return name.slice(CREDENTIAL_NAME.length + 1);
  const extension = extname(name);
  return extension === '' || extension === name ? name : name.slice(0, -extension.length);
}

function pathList(value: unknown): string[] {
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.flatMap((entry) => String(entry).split(':')).filter((path) => path !== '');
}

function fromFile(entry: TokenFileEntry, warn: (line: string) => void): TokenCredential {
  const source = `token file ${entry.file}`;
  const label = entry.label ?? labelOfFile(entry.file);
  checkTokenLabel(label, source);
  const { text, mode } = readSmallFile(entry.file, MAX_TOKEN_FILE_BYTES, source);
  if ((mode & 0o077) !== 0) {
    const octal = mode.toString(8).padStart(4, '0');
    warn(`${source} is accessible by group or others (mode ${octal}); chmod 600 it`);
  }
  return {
    label,
    secret: checkSecret(text, source),
    ...(entry.scope ? { scope: entry.scope } : {}),
  };
}

/** The token text, trimmed; refused (without echoing it) unless it looks like a token. */
function checkSecret(text: string, source: string): string {
  const token = text.trim();
  if (token === '') throw new UsageError(`${source} is empty`);
  if (!token.startsWith(TOKEN_PREFIX) || /\s/.test(token)) {
    throw new UsageError(`${source} does not hold a token (tokens start with ${TOKEN_PREFIX})`);
  }
  return token;
}

/** The config file's `token-file` and `token-files`, checked. */
function configEntries(args: TokenArgs): TokenFileEntry[] {
  const entries: TokenFileEntry[] = pathList(args.configTokenFile).map((file) => ({ file }));
  if (args.tokenFiles === undefined) return entries;
  if (!Array.isArray(args.tokenFiles)) {
    throw new UsageError(
      'token-files is a config file key holding an array; on the command line use --token-file',
    );
  }
  args.tokenFiles.forEach((item: unknown, index) => entries.push(configEntry(item, index)));
  return entries;
}

function configEntry(item: unknown, index: number): TokenFileEntry {
  const where = `config "token-files"[${index}]`;
  if (typeof item === 'string' && item !== '') return { file: item };
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    throw new UsageError(`${where} must be a file name or {"file", "label", "scope"}`);
  }
  const { file, label, scope, ...rest } = item as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined)
    throw new UsageError(`${where}: unknown key ${JSON.stringify(unknown)}`);
  if (typeof file !== 'string' || file === '')
    throw new UsageError(`${where}.file must be a file name`);
  if (label !== undefined && typeof label !== 'string') {
    throw new UsageError(`${where}.label must be a string`);
  }
  if (scope !== undefined && scope !== 'project' && scope !== 'account') {
    throw new UsageError(
      `${where}.scope must be "project" or "account", not ${JSON.stringify(scope)}`,
    );
  }
  return { file, label, scope };
}

/** Every credential `projmirror-token` or `projmirror-token.<label>` of the directory. */
function credentials(directory: string, warn: (line: string) => void): TokenCredential[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`cannot read credentials directory ${directory}: ${reason}`);
  }
  const tokens = names
    .filter((name) => name === CREDENTIAL_NAME || name.startsWith(`${CREDENTIAL_NAME}.`))
    .sort()
    .map((name) => fromFile({ file: join(directory, name) }, warn));
  if (tokens.length === 0) {
    throw new UsageError(`no token: no credential ${CREDENTIAL_NAME} in ${directory}`);
  }
  return tokens;
}
