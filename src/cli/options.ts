/**
 * The common options' resolution into checked values. Flags, environment (`PROJMIRROR_*`) and
 * the `--config` file are merged by yargs (`common-options.ts`); this module validates the
 * result and reads the tokens (`token-sources.ts`), which are never accepted as a flag.
 */
import type { MirrorLocation } from '../store/open.js';
import type { Argv } from 'yargs';
import { isTimeZone, trustedCertificates, UsageError } from '../domain/index.js';
import { TOKEN_PREFIX, type TokenCredential } from '../tokens/index.js';
import {
  CONFIG_TOKEN_FILE,
  REMOTE_OPTIONS,
  STORE_OPTIONS,
  withCommonOptions,
} from './common-options.js';
import { readTokens } from './token-sources.js';

export { MAX_TOKEN_FILE_BYTES, readToken } from './token-sources.js';

/** Adds the common options, showing those of commands that only read or edit the mirror. */
export function withStoreOptions(yargs: Argv): Argv {
  return withCommonOptions(yargs, STORE_OPTIONS);
}

/** Adds the common options, showing those of commands that talk to the service. */
export function withRemoteOptions(yargs: Argv): Argv {
  return withCommonOptions(yargs, REMOTE_OPTIONS);
}

/** Everything needed to reach the service, checked. */
export interface RemoteSettings {
  baseUrl: URL;
  /** Every configured token, labelled. */
  tokens: TokenCredential[];
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

/**
 * Refuses a token given as a flag: it would show in the process list. `enqueue --token` takes a
 * token's label, refused only when it is a token.
 */
export function refuseTokenFlag(argv: string[]): void {
  if (argv[0] === 'simulate') return;
  const values = argv.flatMap((word, index) => {
    if (word === '--token') return [argv[index + 1] ?? ''];
    return word.startsWith('--token=') ? [word.slice('--token='.length)] : [];
  });
  const label = (value: string) => argv[0] === 'enqueue' && !value.startsWith(TOKEN_PREFIX);
  if (values.some((value) => !label(value))) {
    throw new UsageError(
      '--token is refused: a token on the command line shows in the process list; use --token-file or PROJMIRROR_TOKEN',
    );
  }
}

/**
 * Refuses the config file's `token-file` under its internal name (`CONFIG_TOKEN_FILE`) from the
 * command line or the environment: an option for the config file's value alone, no user's.
 */
export function refuseInternalOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): void {
  const flag = `--${CONFIG_TOKEN_FILE}`;
  if (argv.some((word) => word === flag || word.startsWith(`${flag}=`))) {
    throw new UsageError(`unknown option: ${flag}`);
  }
  const variable = `PROJMIRROR_${CONFIG_TOKEN_FILE.toUpperCase().replaceAll('-', '_')}`;
  if (env[variable] !== undefined) {
    throw new UsageError(`unknown environment variable: ${variable}`);
  }
}

/** `--db` and `--db-password-file`: where the mirror is. */
export function mirrorLocation(args: Record<string, unknown>): MirrorLocation {
  const passwordFile = args['dbPasswordFile'];
  return {
    db: String(args['db']),
    passwordFile:
      typeof passwordFile === 'string' && passwordFile !== '' ? passwordFile : undefined,
  };
}

/** The shortest lease, in ms: renewed every third of it, it must outlast a slow statement. */
export const MIN_LEASE_MS = 3_000;

/** The engine's `db` options from the command's arguments: where, and the lease time. */
export function mirrorOptions(args: Record<string, unknown>): {
  db: string;
  dbPasswordFile?: string;
  leaseMs?: number;
} {
  const location = mirrorLocation(args);
  const lease = args['leaseMs'];
  const valid = typeof lease === 'number' && Number.isSafeInteger(lease) && lease >= MIN_LEASE_MS;
  if (lease !== undefined && !valid) {
    throw new UsageError(
      `--lease-ms ${JSON.stringify(lease)} must be a whole number of milliseconds, ${MIN_LEASE_MS} or more`,
    );
  }
  return {
    db: location.db,
    ...(location.passwordFile === undefined ? {} : { dbPasswordFile: location.passwordFile }),
    ...(typeof lease === 'number' ? { leaseMs: lease } : {}),
  };
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
export function resolveRemoteSettings(
  args: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): RemoteSettings {
  const baseUrl = parseBaseUrl(args['baseUrl']);
  const realtimeUrl =
    args['realtimeUrl'] === undefined || args['realtimeUrl'] === ''
      ? undefined
      : parseServiceUrl(args['realtimeUrl'], 'realtime-url', ['wss', 'ws']);
  const caFile =
    typeof args['caFile'] === 'string' && args['caFile'] !== '' ? args['caFile'] : undefined;
  // Checked before anything is opened: the same policy the client and the listener apply.
  if (caFile !== undefined) trustedCertificates(caFile);
  // --token-file and PROJMIRROR_TOKEN_FILE beat PROJMIRROR_TOKEN, which beats the config file.
  const tokens = readTokens(
    {
      tokenFile: args['tokenFile'],
      configTokenFile: args[CONFIG_TOKEN_FILE],
      tokenFiles: args['tokenFiles'],
    },
    env,
  );
  return {
    baseUrl,
    tokens,
    caFile,
    realtimeUrl,
    projects: parseProjectList(args['projects']),
  };
}

const NO_BOUND = { 'deadline-ms': 'no deadline', 'stall-ms': 'no stall bound' } as const;

/** Checks a bound in milliseconds (`--deadline-ms`, `--stall-ms`): a whole number, 0 (none) or more. */
export function parseMsBound(value: unknown, flag: 'deadline-ms' | 'stall-ms'): number {
  const ms = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0) {
    throw new UsageError(
      `--${flag} ${JSON.stringify(value)} must be a whole number of milliseconds, 0 (${NO_BOUND[flag]}) or more`,
    );
  }
  return ms;
}
