/**
 * The options every mirror command accepts, from a flag, its `PROJMIRROR_*` variable or the
 * `--config` file alike, so that one environment file or one config file serves every command.
 * A command shows the options it uses; the others are accepted, hidden from its help, and ignored.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv, Options } from 'yargs';
import { UsageError } from '../domain/index.js';
import { DEFAULT_ITEM_RETRY_WINDOW_MS } from '../outbox/retries.js';
import { ON_CONFLICT_CHOICES } from '../outbox/send.js';
import {
  DEFAULT_CHANGES_RETENTION_DAYS,
  DEFAULT_CHECKPOINT_BLOCKED_MINUTES,
  DEFAULT_HISTORY_RETENTION_DAYS,
  DEFAULT_METRICS_HOST,
  DEFAULT_RECONCILE_CRON,
  DEFAULT_SCHEDULE_TIMEZONE,
} from '../daemon/defaults.js';
import { DEFAULT_LEASE_MS } from '../store/port.js';
import { readConfigFile } from './config-file.js';
import { DEFAULT_DEADLINE_MS, DEFAULT_STALL_MS } from './interrupt.js';

/** The config file every command reads when it exists and no other is named. */
export const DEFAULT_CONFIG_FILE = '/etc/projmirror/config.json';

/**
 * The config file read when neither `--config` nor `PROJMIRROR_CONFIG` names one: `config.json`
 * in `$CONFIGURATION_DIRECTORY` (systemd sets it for the unit: /etc/projmirror), else
 * `DEFAULT_CONFIG_FILE`; undefined when that file does not exist.
 */
export function defaultConfigFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const directory = env['CONFIGURATION_DIRECTORY']?.split(':')[0];
  const file = directory ? join(directory, 'config.json') : DEFAULT_CONFIG_FILE;
  return existsSync(file) ? file : undefined;
}

/** The default mirror file. */
export const DEFAULT_DB_FILE = './projmirror.sqlite';
/** Minutes of nothing but refusals of the token after which `run` exits (`EXIT_TOKEN_REFUSED`). */
export const DEFAULT_TOKEN_REFUSED_MINUTES = 10;
/** How a one-shot command's log lines look on stderr (`plain` by default). */
export const LOG_FORMATS = ['plain', 'json'] as const;
/** pino's level names, as `--log-level` takes them. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** One common option: the JSON type its config-file value must have, and how yargs takes it. */
export interface CommonOption {
  json: 'string' | 'number' | 'object' | 'array';
  yargs: Options;
  /** Set by the config file alone (a structured value no flag or variable spells). */
  configOnly?: true;
}

/** Every common option, by its flag name (the config file's key too). */
export const COMMON_OPTIONS = {
  db: {
    json: 'string',
    yargs: {
      type: 'string',
      default: DEFAULT_DB_FILE,
      describe:
        'the SQLite mirror file, or a PostgreSQL database: postgres://user@host:5432/dbname?sslmode=verify-full&schema=projmirror',
    },
  },
  'db-password-file': {
    json: 'string',
    yargs: {
      type: 'string',
      describe:
        'file holding the PostgreSQL password (default: the db-password credential in $CREDENTIALS_DIRECTORY, else ~/.pgpass)',
    },
  },
  'lease-ms': {
    json: 'number',
    yargs: {
      type: 'number',
      default: DEFAULT_LEASE_MS,
      describe:
        "on a PostgreSQL mirror shared by daemons: how long a project's lease lasts unless renewed, in ms (a dead daemon's projects move to another after it)",
    },
  },
  'log-level': {
    json: 'string',
    yargs: {
      type: 'string',
      choices: LOG_LEVELS,
      describe:
        'pino log level (default: warn for the plain lines of a one-shot command, info for JSON lines and for run)',
    },
  },
  'log-format': {
    json: 'string',
    yargs: {
      type: 'string',
      choices: LOG_FORMATS,
      describe:
        'how a one-shot command writes on stderr: plain lines a person reads (projmirror: warning: ...), or JSON lines; run always logs JSON on stdout',
    },
  },
  timezone: {
    json: 'string',
    yargs: {
      type: 'string',
      describe:
        'IANA time zone of "today" and "overdue" (Europe/Berlin); sync and run record it in the mirror for every reader (default: the mirror\'s, else UTC)',
    },
  },
  'base-url': {
    json: 'string',
    yargs: { type: 'string', describe: 'service base URL, ending in /v1' },
  },
  'token-file': {
    json: 'string',
    yargs: {
      type: 'string',
      describe:
        'file holding a token (or PROJMIRROR_TOKEN); repeat it, or join files with ":", for several tokens, each labelled by its file name',
    },
  },
  'token-files': {
    json: 'array',
    configOnly: true,
    yargs: {
      describe:
        'token files with labels and scopes (config file only): [{"file": FILE, "label": LABEL, "scope": "project" | "account"}]',
    },
  },
  'ca-file': {
    json: 'string',
    yargs: { type: 'string', describe: 'extra trusted CA certificates (PEM)' },
  },
  'realtime-url': {
    json: 'string',
    yargs: { type: 'string', describe: 'realtime WebSocket URL; without it the daemon polls' },
  },
  projects: {
    json: 'string',
    yargs: { type: 'string', describe: 'mirror only these project ids (comma-separated)' },
  },
  routes: {
    json: 'object',
    configOnly: true,
    yargs: {
      describe:
        'route overrides (config file only): {"getProject": {"path": "/projects/{projectId}/summary"}}',
    },
  },
  'metrics-port': {
    json: 'number',
    yargs: { type: 'number', describe: 'serve Prometheus /metrics and /healthz on this port' },
  },
  'metrics-host': {
    json: 'string',
    yargs: {
      type: 'string',
      default: DEFAULT_METRICS_HOST,
      describe: 'the address /metrics and /healthz listen on (0.0.0.0 or :: for every interface)',
    },
  },
  'reconcile-cron': {
    json: 'string',
    yargs: {
      type: 'string',
      default: DEFAULT_RECONCILE_CRON,
      describe: 'when the daily full reconcile runs (cron, in --reconcile-timezone)',
    },
  },
  'reconcile-timezone': {
    json: 'string',
    yargs: {
      type: 'string',
      default: DEFAULT_SCHEDULE_TIMEZONE,
      describe: 'the IANA time zone --reconcile-cron is read in (say Europe/Berlin)',
    },
  },
  'history-retention-days': {
    json: 'number',
    yargs: {
      type: 'number',
      default: DEFAULT_HISTORY_RETENTION_DAYS,
      describe: 'task_history rows older than this are pruned daily',
    },
  },
  'changes-retention-days': {
    json: 'number',
    yargs: {
      type: 'number',
      default: DEFAULT_CHANGES_RETENTION_DAYS,
      describe: 'change feed rows (projmirror changes) older than this are pruned daily',
    },
  },
  'max-staleness': {
    json: 'string',
    yargs: {
      type: 'string',
      describe:
        'no project waits longer than this between polls: 45m, 6h, 1d (default: 3x the interval of polling every project alike)',
    },
  },
  'token-refused-minutes': {
    json: 'number',
    yargs: {
      type: 'number',
      default: DEFAULT_TOKEN_REFUSED_MINUTES,
      describe:
        'exit 3 once every request has been refused (401, or 403 to the project listing) for this long; 0: at the first',
    },
  },
  'stall-ms': {
    json: 'number',
    yargs: {
      // Untyped, so that a bad value reaches the check as written.
      default: DEFAULT_STALL_MS,
      describe:
        "sync and push: stop once nothing has advanced for this long (no whole answer, page or item; the budget's own waits do not count), exit 1 with one line, the mirror as last committed, in ms; 0: never",
    },
  },
  'checkpoint-blocked-minutes': {
    json: 'number',
    yargs: {
      type: 'number',
      default: DEFAULT_CHECKPOINT_BLOCKED_MINUTES,
      describe:
        "warn, and say so in /healthz, once a reader has kept the database's write-ahead log from being checkpointed this long",
    },
  },
  'deadline-ms': {
    json: 'number',
    yargs: {
      default: DEFAULT_DEADLINE_MS,
      describe:
        'sync and push: stop after this long overall, progress or not (exit 1, one line, the mirror as last committed), in ms; 0 (the default): no deadline',
    },
  },
  'item-retry-window-ms': {
    json: 'number',
    yargs: {
      default: DEFAULT_ITEM_RETRY_WINDOW_MS,
      describe:
        "how long to keep retrying one item after its first transient failure, with backoff and the same Idempotency-Key, before leaving it pending (its project's later items wait meanwhile), in ms; 0: one try per item",
    },
  },
  'on-conflict': {
    json: 'string',
    yargs: {
      type: 'string',
      choices: ON_CONFLICT_CHOICES,
      default: 'hold',
      describe:
        'an outbox item whose fields the service changed since it was queued: hold it in conflict until resolved (projmirror outbox resolve), or overwrite (last writer wins)',
    },
  },
} satisfies Record<string, CommonOption>;

/** The name of a common option. */
export type CommonOptionName = keyof typeof COMMON_OPTIONS;

/** What the commands that only read or edit the mirror file use. */
export const STORE_OPTIONS: readonly CommonOptionName[] = [
  'db',
  'db-password-file',
  'log-level',
  'log-format',
  'timezone',
];
/** What the commands that talk to the service use. */
export const REMOTE_OPTIONS: readonly CommonOptionName[] = [
  ...STORE_OPTIONS,
  'base-url',
  'token-file',
  'token-files',
  'ca-file',
  'realtime-url',
  'projects',
  'routes',
  'lease-ms',
];
/**
 * What the one-shot commands that talk to the service (`sync`, `push`) use: not the realtime
 * channel, which only the daemon listens on (a config file shared with `run` may name it).
 */
export const ONE_SHOT_OPTIONS: readonly CommonOptionName[] = [
  ...REMOTE_OPTIONS.filter((name) => name !== 'realtime-url'),
  'stall-ms',
  'deadline-ms',
];

/**
 * The config file's `token-file` is kept under this hidden name, so that `PROJMIRROR_TOKEN` can
 * beat it (environment over file) while `--token-file` and `PROJMIRROR_TOKEN_FILE` beat both.
 */
export const CONFIG_TOKEN_FILE = 'config-token-file';

/** Reads a config file of common options, its `token-file` kept apart (`CONFIG_TOKEN_FILE`). */
export function readCommonConfig(file: string): Record<string, unknown> {
  const { 'token-file': tokenFile, ...config } = readConfigFile(file, COMMON_OPTIONS);
  return tokenFile === undefined ? config : { ...config, [CONFIG_TOKEN_FILE]: tokenFile };
}

/**
 * Adds every common option and `--config` to a command. Options not in `used` are accepted from
 * flags, environment and config file alike, hidden from the command's options, and named in its
 * help's last lines as accepted and ignored. `own` names options the command declares itself
 * (enqueue's `--token LABEL`), which the hidden ones must not shadow.
 */
export function withCommonOptions(
  yargs: Argv,
  used: readonly CommonOptionName[],
  own: readonly string[] = [],
): Argv {
  let result = yargs
    .config(
      'config',
      `JSON config file (default ${DEFAULT_CONFIG_FILE} when it exists; flags beat environment, which beats this file, which beats defaults)`,
      readCommonConfig,
    )
    .default('config', defaultConfigFile(), DEFAULT_CONFIG_FILE);
  const ignored: CommonOptionName[] = [];
  for (const [name, option] of Object.entries(COMMON_OPTIONS) as [
    CommonOptionName,
    CommonOption,
  ][]) {
    if (used.includes(name)) {
      result = result.option(name, option.yargs);
    } else {
      const { type, describe } = option.yargs;
      result = result.option(name, { ...(type ? { type } : {}), describe, hidden: true });
      ignored.push(name);
    }
  }
  result = result.option(CONFIG_TOKEN_FILE, {
    type: 'string',
    hidden: true,
    describe: 'token-file of --config',
  });
  if (!own.includes('token')) {
    result = result.option('token', {
      type: 'string',
      hidden: true,
      describe: 'from PROJMIRROR_TOKEN only',
    });
  }
  const line = ignoredOptionsLine(ignored, !used.includes('token-file'));
  return line === '' ? result : result.epilogue(line);
}

/**
 * The help's last line: the common options a command accepts and ignores, so that its help names
 * every option it takes. Empty when it ignores none.
 */
function ignoredOptionsLine(ignored: readonly CommonOptionName[], tokenIgnored: boolean): string {
  const configOnly = (name: CommonOptionName) => 'configOnly' in COMMON_OPTIONS[name];
  const flags = ignored.filter((name) => !configOnly(name)).map((name) => `--${name}`);
  if (tokenIgnored) flags.push('PROJMIRROR_TOKEN');
  const keys = ignored.filter(configOnly);
  const parts = [flags.join(', '), keys.length > 0 ? `the config file's ${keys.join(', ')}` : ''];
  const named = parts.filter((part) => part !== '').join('; ');
  if (named === '') return '';
  return `Every command accepts every common option, as a flag, a PROJMIRROR_* variable or a config file key, so that one environment or config file serves them all; this one ignores ${named}.`;
}

/** `--on-conflict` as checked: hold (the default) or overwrite. */
export function onConflictOf(args: Record<string, unknown>): 'hold' | 'overwrite' {
  const value = args['on-conflict'] ?? 'hold';
  if (value === 'hold' || value === 'overwrite') return value;
  throw new UsageError(`--on-conflict ${JSON.stringify(value)} must be hold or overwrite`);
}
