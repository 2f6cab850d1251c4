/**
 * `projmirror simulate`: the bundled simulator of the service on loopback (contract section 6).
 * Prints one JSON line `{"baseUrl", "realtimeUrl", "caFile", "tokens"}` once it listens, then
 * serves until SIGTERM or SIGINT, closes cleanly and exits 0. `--readings PROFILE` and one flag
 * per switch pick the readings of what the spec leaves open (contract section 4).
 */
import type { ArgumentsCamelCase, Argv } from 'yargs';
import { DEFAULT_ROUTES, UsageError, type RouteName } from '../../domain/index.js';
import { isLoopbackHost } from '../options.js';
import {
  DEFAULT_BURST,
  DEFAULT_DAILY_QUOTA,
  DEFAULT_DAY_MS,
  DEFAULT_IP_LIMIT,
  DEFAULT_PROJECTS,
  DEFAULT_READINGS,
  DEFAULT_SEED,
  DEFAULT_TASKS_PER_PROJECT,
  READING_CHOICES,
  READING_PROFILES,
  startSimulator,
  type FaultKind,
  type FaultRule,
  type SimReadings,
  type SimulatorOptions,
} from '../../sim/index.js';
import type { CommandBody } from '../command.js';
import { EXIT_OK } from '../exit.js';

const FAULT_KINDS: FaultKind[] = ['html', 'malformed', 'wrongShape', 'drop', 'commitThenDrop'];

type ReadingName = keyof SimReadings;

/** Each reading switch's flag and help; the flag is the switch's name in kebab case. */
const READING_FLAGS: Record<ReadingName, { flag: string; describe: string }> = {
  identity: {
    flag: 'identity',
    describe: "a token's integration member appears on its first write, or first request",
  },
  setDependencies: {
    flag: 'set-dependencies',
    describe: 'set dependencies: one dependency.changed, or one per added/removed record',
  },
  reorder: {
    flag: 'reorder',
    describe: 'reorder: one project.updated, or one task.updated per moved task',
  },
  idempotency: {
    flag: 'idempotency',
    describe: 'Idempotency-Key bodies compared as bytes, or as parsed JSON',
  },
  hiddenRecord: {
    flag: 'hidden-record',
    describe: "a hidden project's task, resource or dependency answers 403 or 404",
  },
  statusMapping: {
    flag: 'status-mapping',
    describe: 'status from progress: contract (0, 1-99, 100) or coarse (<50, 50-99, 100)',
  },
};

const READINGS_GROUP = 'Readings of what the spec leaves open (contract section 4):';

/**
 * `--readings PROFILE` and one flag per switch; unset flags keep the profile's value. The values
 * are checked by `readingsFromArgs` (one line naming the bad value), not by yargs `choices`.
 */
function readingOptions(yargs: Argv): Argv {
  const names = Object.keys(READING_FLAGS) as ReadingName[];
  const profiles = READING_PROFILES.map(([name]) => name).join(', ');
  let result = yargs.option('readings', {
    type: 'string',
    defaultDescription: 'default',
    describe: `a named set of readings, overridden by the flags below: ${profiles}`,
  });
  for (const name of names) {
    const { flag, describe } = READING_FLAGS[name];
    result = result.option(flag, {
      type: 'string',
      defaultDescription: String(DEFAULT_READINGS[name]),
      describe: `${describe} [${READING_CHOICES[name].join(' | ')}]`,
    });
  }
  return result.group(
    ['readings', ...names.map((name) => READING_FLAGS[name].flag)],
    READINGS_GROUP,
  );
}

function builder(yargs: Argv): Argv {
  // PROJMIRROR_* variables configure the daemon, not the simulator (PROJMIRROR_PROJECTS is a
  // list of ids there, PROJMIRROR_TOKEN a secret that must not be printed): ignore them here.
  return readingOptions(yargs)
    .env(false)
    .option('port', {
      type: 'number',
      default: 0,
      describe: 'port to listen on (0: any free port)',
    })
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'interface to listen on' })
    .option('tls', {
      type: 'boolean',
      default: false,
      describe: 'serve HTTPS with a self-signed CA',
    })
    .option('ca-out', {
      type: 'string',
      describe: 'with --tls: write the CA PEM here (default: a temp file)',
    })
    .option('seed', {
      type: 'number',
      default: DEFAULT_SEED,
      describe: 'seed of the generated data',
    })
    .option('projects', {
      type: 'number',
      default: DEFAULT_PROJECTS,
      describe: 'generated projects',
    })
    .option('tasks', {
      type: 'number',
      default: DEFAULT_TASKS_PER_PROJECT,
      describe: 'tasks per project',
    })
    .option('read-only-projects', {
      type: 'number',
      default: 0,
      describe: 'make the last N projects read-only',
    })
    .option('token', {
      type: 'string',
      array: true,
      describe: 'register an account token with this value for the seeded user (repeatable)',
    })
    .option('fixture', {
      type: 'string',
      describe: 'JSON fixture to serve instead of generated data',
    })
    .option('burst', {
      type: 'number',
      default: DEFAULT_BURST,
      describe: 'requests per token per minute',
    })
    .option('quota', {
      type: 'number',
      default: DEFAULT_DAILY_QUOTA,
      describe: 'requests per token per day',
    })
    .option('day-ms', {
      type: 'number',
      default: DEFAULT_DAY_MS,
      describe: 'length of a quota day in ms',
    })
    .option('ip-limit', {
      type: 'number',
      default: DEFAULT_IP_LIMIT,
      describe: 'requests per IP per minute',
    })
    .option('limits', {
      type: 'boolean',
      default: true,
      describe: 'enforce limits (--no-limits: none)',
    })
    .option('realtime-data', { type: 'boolean', default: true, describe: 'include data in events' })
    .option('fail', {
      type: 'string',
      array: true,
      describe: `inject faults: ROUTE:STATUS:COUNT or ROUTE:KIND:COUNT (ROUTE a route name or *; KIND one of ${FAULT_KINDS.join(', ')})`,
    })
    .option('delay-ms', {
      type: 'number',
      default: 0,
      describe: 'delay every request by this many ms',
    });
}

/** Parses `ROUTE:STATUS:COUNT` (or `ROUTE:KIND:COUNT`) into a fault rule. */
export function parseFailSpec(spec: string): FaultRule {
  const parts = spec.split(':');
  const [route, what, countText] = parts;
  const bad = (reason: string) => new UsageError(`--fail ${JSON.stringify(spec)}: ${reason}`);
  if (parts.length !== 3 || route === undefined || what === undefined || countText === undefined) {
    throw bad('expected ROUTE:STATUS:COUNT');
  }
  const anyRoute = route === '*' || route === 'any';
  if (!anyRoute && !(route in DEFAULT_ROUTES)) throw bad(`unknown route ${route}`);
  if (!/^[1-9]\d*$/.test(countText)) throw bad('COUNT must be a positive integer');
  const target = {
    route: anyRoute ? ('*' as const) : (route as RouteName),
    count: Number(countText),
  };
  if ((FAULT_KINDS as string[]).includes(what)) return { ...target, kind: what as FaultKind };
  const status = Number(what);
  if (!/^\d{3}$/.test(what) || status < 100 || status > 599) {
    throw bad(`STATUS must be an HTTP status or one of ${FAULT_KINDS.join(', ')}`);
  }
  return { ...target, kind: 'status', status };
}

function strings(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

function count(args: ArgumentsCamelCase, name: string, flag: string): number {
  const value = args[name];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new UsageError(`--${flag} ${JSON.stringify(value)} must be a non-negative integer`);
  }
  return value;
}

/** The readings a parsed command line asks for: `--readings`' profile, then each switch's flag. */
export function readingsFromArgs(args: ArgumentsCamelCase): SimReadings {
  const profileName = String(args['readings'] ?? 'default');
  const profile = READING_PROFILES.find(([name]) => name === profileName);
  if (profile === undefined) {
    const names = READING_PROFILES.map(([name]) => name).join(', ');
    throw new UsageError(`--readings ${JSON.stringify(profileName)} must be one of ${names}`);
  }
  const readings: Record<string, unknown> = { ...profile[1] };
  for (const name of Object.keys(READING_FLAGS) as ReadingName[]) {
    const value = args[name];
    if (value === undefined) continue;
    const choices: readonly (string | number)[] = READING_CHOICES[name];
    const chosen = choices.find((choice) => String(choice) === String(value));
    if (chosen === undefined) {
      throw new UsageError(
        `--${READING_FLAGS[name].flag} ${JSON.stringify(String(value))} must be one of ${choices.join(', ')}`,
      );
    }
    readings[name] = chosen;
  }
  return readings as unknown as SimReadings;
}

/** The simulator options a parsed `simulate` command line asks for. */
export function simulatorOptionsFromArgs(args: ArgumentsCamelCase): SimulatorOptions {
  const positive = (name: string, flag: string) => {
    const value = count(args, name, flag);
    if (value === 0) throw new UsageError(`--${flag} must be at least 1`);
    return value;
  };
  return {
    host: loopbackHost(args['host']),
    port: count(args, 'port', 'port'),
    tls: args['tls'] === true,
    caFile: typeof args['caOut'] === 'string' ? args['caOut'] : undefined,
    seed: count(args, 'seed', 'seed'),
    projects: count(args, 'projects', 'projects'),
    tasks: count(args, 'tasks', 'tasks'),
    readOnlyProjects: count(args, 'readOnlyProjects', 'read-only-projects'),
    tokens: strings(args['token']),
    fixture: typeof args['fixture'] === 'string' ? args['fixture'] : undefined,
    burst: positive('burst', 'burst'),
    quota: positive('quota', 'quota'),
    dayMs: positive('dayMs', 'day-ms'),
    ipLimit: positive('ipLimit', 'ip-limit'),
    limits: args['limits'] !== false,
    realtimeData: args['realtimeData'] !== false,
    faults: strings(args['fail']).map(parseFailSpec),
    delayMs: count(args, 'delayMs', 'delay-ms'),
    readings: readingsFromArgs(args),
  };
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop).off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop).on('SIGINT', stop);
  });
}

export const body: CommandBody = {
  builder,
  handler: async (args) => {
    const sim = await startSimulator(simulatorOptionsFromArgs(args));
    const stopped = untilSignal();
    const { baseUrl, realtimeUrl, tokens } = sim;
    process.stdout.write(
      `${JSON.stringify({ baseUrl, realtimeUrl, caFile: sim.caFile ?? null, tokens })}\n`,
    );
    await stopped;
    await sim.close();
    return EXIT_OK;
  },
};

/** The simulator serves loopback only: its tokens are real bearer tokens. */
function loopbackHost(value: unknown): string {
  const host = String(value);
  if (!isLoopbackHost(host)) {
    throw new UsageError(
      `--host ${host} is not a loopback address; the simulator serves 127.0.0.1, ::1 or localhost only`,
    );
  }
  return host;
}
