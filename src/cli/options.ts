/**
 * The options every networked command shares, and their resolution into checked values.
 * Flags, environment (`PROJMIRROR_*`) and the `--config` file are merged by yargs; this module
 * validates the result and reads the token, which is never accepted as a flag.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import { isTimeZone, trustedCertificates, UsageError } from '../domain/index.js';

/** The default mirror file. */
export const DEFAULT_DB_FILE = './projmirror.sqlite';
const TOKEN_PREFIX = 'glt_';
const CREDENTIAL_NAME = 'projmirror-token';

/** Adds `--db`, `--log-level` and `--timezone`, which even offline commands take. */
export function withStoreOptions(yargs: Argv): Argv {
  return yargs
    .option('db', { type: 'string', default: DEFAULT_DB_FILE, describe: 'the SQLite mirror file' })
    .option('timezone', {
      type: 'string',
      describe:
        'IANA time zone of "today" and "overdue" (Europe/Berlin); sync and run record it in the mirror for every reader (default: the mirror\'s, else UTC)',
    })
    .option('log-level', {
      type: 'string',
      default: 'info',
      choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      describe: 'pino log level; logs are JSON lines on stdout',
    });
}

/** Adds the options of commands that talk to the service. */
export function withRemoteOptions(yargs: Argv): Argv {
  return withStoreOptions(yargs)
    .option('base-url', { type: 'string', describe: 'service base URL, ending in /v1' })
    .option('token-file', {
      type: 'string',
      describe: 'file holding the token (or PROJMIRROR_TOKEN)',
    })
    .option('ca-file', { type: 'string', describe: 'extra trusted CA certificates (PEM)' })
    .option('realtime-url', {
      type: 'string',
      describe: 'realtime WebSocket URL; without it the daemon polls',
    })
    .option('projects', {
      type: 'string',
      describe: 'mirror only these project ids (comma-separated)',
    })
    .option('routes', { hidden: true, describe: 'route overrides (config file only)' })
    .option('token', { type: 'string', hidden: true, describe: 'from PROJMIRROR_TOKEN only' });
}

/** Everything needed to reach the service, checked. */
export interface RemoteSettings {
  baseUrl: URL;
  token: string;
  caFile: string | undefined;
  realtimeUrl: URL | undefined;
  projects: string[] | undefined;
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

/** True for hosts on this machine: `localhost`, `::1` and 127.0.0.0/8. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

function parseServiceUrl(
  value: unknown,
  flag: string,
  schemes: [secure: string, plain: string],
): URL {
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${flag} is required`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--${flag} ${JSON.stringify(value)} is not a URL`);
  }
  const [secure, plain] = schemes;
  if (url.protocol === `${plain}:`) {
    if (!isLoopbackHost(url.hostname)) {
      throw new UsageError(
        `--${flag} ${url.origin} uses ${plain}:// to a host that is not loopback; use ${secure}://`,
      );
    }
  } else if (url.protocol !== `${secure}:`) {
    throw new UsageError(`--${flag} ${JSON.stringify(value)} must be a ${secure}:// URL`);
  }
  if (url.username || url.password) throw new UsageError(`--${flag} must not carry credentials`);
  return url;
}

/** Checks the base URL: https, or http to loopback only; ends in `/v1`. */
export function parseBaseUrl(value: unknown): URL {
  const url = parseServiceUrl(value, 'base-url', ['https', 'http']);
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/v1')) {
    throw new UsageError(`--base-url ${url.href} must end with the version segment /v1`);
  }
  url.pathname = path;
  return url;
}

/** Refuses a token given as a flag: it would show in the process list. */
export function refuseTokenFlag(argv: string[]): void {
  if (argv[0] === 'simulate') return;
  if (argv.some((word) => word === '--token' || word.startsWith('--token='))) {
    throw new UsageError(
      '--token is refused: a token on the command line shows in the process list; use --token-file or PROJMIRROR_TOKEN',
    );
  }
}

/** Reads the token: `--token-file`, `PROJMIRROR_TOKEN`, then the systemd credential. */
export function readToken(tokenFile: unknown, env: NodeJS.ProcessEnv = process.env): string {
  let token: string | undefined;
  let source: string;
  if (typeof tokenFile === 'string' && tokenFile !== '') {
    source = `token file ${tokenFile}`;
    token = readSecretFile(tokenFile, source);
  } else if (env['PROJMIRROR_TOKEN']) {
    source = 'PROJMIRROR_TOKEN';
    token = env['PROJMIRROR_TOKEN'];
  } else if (env['CREDENTIALS_DIRECTORY']) {
    const file = join(env['CREDENTIALS_DIRECTORY'], CREDENTIAL_NAME);
    source = `credential ${file}`;
    token = readSecretFile(file, source);
  } else {
    throw new UsageError(
      'no token: pass --token-file FILE, or set PROJMIRROR_TOKEN or PROJMIRROR_TOKEN_FILE',
    );
  }
  token = token.trim();
  if (token === '') throw new UsageError(`${source} is empty`);
  if (!token.startsWith(TOKEN_PREFIX) || /\s/.test(token)) {
    throw new UsageError(`${source} does not hold a token (tokens start with ${TOKEN_PREFIX})`);
  }
  return token;
}

function readSecretFile(file: string, source: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`cannot read ${source}: ${reason}`);
  }
}

/** Checks `--timezone`: undefined when not given, else a zone the platform knows. */
export function parseTimeZone(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !isTimeZone(value)) {
    throw new UsageError(
      `--timezone ${JSON.stringify(value)} is not an IANA time zone (such as Europe/Berlin or UTC)`,
    );
  }
  return value;
}

/** Splits `--projects a,b` into ids; undefined means every project the token lists. */
export function parseProjectList(value: unknown): string[] | undefined {
  if (value === undefined || value === '') return undefined;
  const ids = String(value)
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  if (ids.length === 0)
    throw new UsageError(`--projects ${JSON.stringify(value)} names no project`);
  return ids;
}

/** Resolves and checks the remote options of a parsed command line. */
export function resolveRemoteSettings(args: Record<string, unknown>): RemoteSettings {
  const baseUrl = parseBaseUrl(args['baseUrl']);
  const realtimeUrl =
    args['realtimeUrl'] === undefined || args['realtimeUrl'] === ''
      ? undefined
      : parseServiceUrl(args['realtimeUrl'], 'realtime-url', ['wss', 'ws']);
  const caFile =
    typeof args['caFile'] === 'string' && args['caFile'] !== '' ? args['caFile'] : undefined;
  // Checked before anything is opened: the same policy the client and the listener apply.
  if (caFile !== undefined) trustedCertificates(caFile);
  if (args['token'] !== undefined && process.env['PROJMIRROR_TOKEN'] === undefined) {
    throw new UsageError(
      'a token in the config file is refused; put it in a file named by token-file',
    );
  }
  return {
    baseUrl,
    token: readToken(args['tokenFile']),
    caFile,
    realtimeUrl,
    projects: parseProjectList(args['projects']),
  };
}
