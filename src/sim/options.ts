/** The simulator's options, their defaults (with units) and their resolution, done once. */
import { systemClock, UsageError, type Clock } from '../domain/index.js';
import type { FaultRule } from './faults.js';
import { MAX_PAGE_SIZE } from '../domain/index.js';
import { DEFAULT_PAGE_SIZE } from './http/paging.js';
import type { LimitSettings } from './limits/limits.js';
import { DEFAULT_READINGS, READING_CHOICES, type SimReadings } from './readings.js';
import { DEFAULT_REQUEST_LOG_LIMIT } from './request-log.js';
import type { SimFixture } from './seed/fixture.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_SEED = 1;
export const DEFAULT_PROJECTS = 2;
export const DEFAULT_TASKS_PER_PROJECT = 20;
export const DEFAULT_MEMBERS_PER_PROJECT = 3;
export const DEFAULT_RESOURCES_PER_PROJECT = 2;
export const DEFAULT_DEPENDENCIES_PER_PROJECT = 3;
/** Spec section 8: 60 requests per minute per token. */
export const DEFAULT_BURST = 60;
export const DEFAULT_BURST_WINDOW_MS = 60_000;
/** Spec section 8: 5,000 requests per day per token. */
export const DEFAULT_DAILY_QUOTA = 5_000;
export const DEFAULT_DAY_MS = 86_400_000;
/** Quota days start at midnight UTC. */
export const DEFAULT_DAY_EPOCH_MS = 0;
/** Spec section 8: 300 requests per minute per client IP. */
export const DEFAULT_IP_LIMIT = 300;
export const DEFAULT_IP_WINDOW_MS = 60_000;
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Everything `startSimulator` accepts; every field is optional. */
export interface SimulatorOptions {
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port (default 0: any free port). */
  port?: number;
  /** Serve HTTPS with a fresh self-signed certificate (default false). */
  tls?: boolean;
  /** Where to write the CA PEM with `tls` (default: a temporary file removed on close). */
  caFile?: string;
  /** Time for limits, quota days and `updatedAt` (default: the system clock). */
  clock?: Clock;
  /** Seed of the generated data (default 1). */
  seed?: number;
  /** Generated projects (default 2); ignored when `fixture` is given. */
  projects?: number;
  /** Tasks per generated project (default 20): a number, or one per project (last repeats). */
  tasks?: number | number[];
  /** The last this-many generated projects are read-only (reason `archived`; default 0). */
  readOnlyProjects?: number;
  membersPerProject?: number;
  resourcesPerProject?: number;
  dependenciesPerProject?: number;
  /** A fixture (file path or object) to load instead of generated data. */
  fixture?: string | SimFixture;
  /** Account tokens to register for the seeded user (default: one random token). */
  tokens?: string[];
  /** False turns every limit off, quota headers included (default true). */
  limits?: boolean;
  /** Requests per token per burst window (default 60; `Infinity` turns it off). */
  burst?: number;
  burstWindowMs?: number;
  /** Requests per token per quota day (default 5,000; `Infinity` turns it off). */
  quota?: number;
  /** Length of a quota day (default 24 h). */
  dayMs?: number;
  /** An instant at which a quota day starts (default 0: midnight UTC). */
  dayEpochMs?: number;
  /** Requests per client IP per window (default 300; `Infinity` turns it off). */
  ipLimit?: number;
  ipWindowMs?: number;
  /** Page size of list tasks when the client sends none (default 100). */
  defaultPageSize?: number;
  /** Largest accepted page size (default 500). */
  maxPageSize?: number;
  /** Include `data` in realtime events (default true). */
  realtimeData?: boolean;
  /** Faults armed at start. */
  faults?: FaultRule[];
  /** Delay added to every request, in real milliseconds (default 0). */
  delayMs?: number;
  /** Largest accepted request body (default 16 MiB; larger answers 413). */
  maxBodyBytes?: number;
  /** Request log entries kept (default 100,000). */
  requestLogLimit?: number;
  /** Readings of what the spec leaves open; a missing switch takes `DEFAULT_READINGS`' value. */
  readings?: Partial<SimReadings>;
}

/** The options with every default applied and checked. */
export interface ResolvedSimulatorOptions {
  host: string;
  port: number;
  tls: boolean;
  caFile: string | undefined;
  clock: Clock;
  seed: number;
  projects: number;
  tasks: number[];
  readOnlyProjects: number;
  membersPerProject: number;
  resourcesPerProject: number;
  dependenciesPerProject: number;
  fixture: string | SimFixture | undefined;
  tokens: string[];
  limits: LimitSettings;
  defaultPageSize: number;
  maxPageSize: number;
  realtimeData: boolean;
  faults: FaultRule[];
  delayMs: number;
  maxBodyBytes: number;
  requestLogLimit: number;
  readings: Readonly<SimReadings>;
}

function count(
  name: string,
  value: number | undefined,
  fallback: number,
  min = 0,
  allowInfinity = false,
): number {
  const resolved = value ?? fallback;
  if (allowInfinity && resolved === Infinity) return resolved;
  if (!Number.isInteger(resolved) || resolved < min) {
    throw new UsageError(
      `simulator option ${name} must be an integer of at least ${min}, not ${String(value)}`,
    );
  }
  return resolved;
}

/** `DEFAULT_READINGS` overlaid with the switches `readings` sets, each checked. */
function resolveReadings(readings: Partial<SimReadings> = {}): Readonly<SimReadings> {
  for (const name of Object.keys(readings)) {
    if (!(name in READING_CHOICES)) {
      throw new UsageError(`simulator option readings.${name} is not a reading`);
    }
  }
  const resolved: Record<string, unknown> = {};
  for (const [name, choices] of Object.entries(READING_CHOICES)) {
    const value =
      readings[name as keyof SimReadings] ?? DEFAULT_READINGS[name as keyof SimReadings];
    if (!(choices as readonly unknown[]).includes(value)) {
      throw new UsageError(
        `simulator option readings.${name} must be one of ${choices.join(', ')}, not ${String(value)}`,
      );
    }
    resolved[name] = value;
  }
  return Object.freeze(resolved as unknown as SimReadings);
}

/** Applies the defaults and checks every value. */
export function resolveSimulatorOptions(options: SimulatorOptions = {}): ResolvedSimulatorOptions {
  const tasks = Array.isArray(options.tasks)
    ? options.tasks
    : [options.tasks ?? DEFAULT_TASKS_PER_PROJECT];
  const maxPageSize = count('maxPageSize', options.maxPageSize, MAX_PAGE_SIZE, 1);
  return {
    host: options.host ?? DEFAULT_HOST,
    port: count('port', options.port, 0),
    tls: options.tls ?? false,
    caFile: options.caFile,
    clock: options.clock ?? systemClock,
    seed: count('seed', options.seed, DEFAULT_SEED),
    projects: count('projects', options.projects, DEFAULT_PROJECTS),
    tasks: tasks.map((value) => count('tasks', value, DEFAULT_TASKS_PER_PROJECT)),
    readOnlyProjects: count('readOnlyProjects', options.readOnlyProjects, 0),
    membersPerProject: count(
      'membersPerProject',
      options.membersPerProject,
      DEFAULT_MEMBERS_PER_PROJECT,
    ),
    resourcesPerProject: count(
      'resourcesPerProject',
      options.resourcesPerProject,
      DEFAULT_RESOURCES_PER_PROJECT,
    ),
    dependenciesPerProject: count(
      'dependenciesPerProject',
      options.dependenciesPerProject,
      DEFAULT_DEPENDENCIES_PER_PROJECT,
    ),
    fixture: options.fixture,
    tokens: options.tokens ?? [],
    limits: {
      enabled: options.limits ?? true,
      burst: count('burst', options.burst, DEFAULT_BURST, 1, true),
      burstWindowMs: count('burstWindowMs', options.burstWindowMs, DEFAULT_BURST_WINDOW_MS, 1),
      quota: count('quota', options.quota, DEFAULT_DAILY_QUOTA, 1, true),
      dayMs: count('dayMs', options.dayMs, DEFAULT_DAY_MS, 1),
      dayEpochMs: options.dayEpochMs ?? DEFAULT_DAY_EPOCH_MS,
      ipLimit: count('ipLimit', options.ipLimit, DEFAULT_IP_LIMIT, 1, true),
      ipWindowMs: count('ipWindowMs', options.ipWindowMs, DEFAULT_IP_WINDOW_MS, 1),
    },
    defaultPageSize: Math.min(
      count('defaultPageSize', options.defaultPageSize, DEFAULT_PAGE_SIZE, 1),
      maxPageSize,
    ),
    maxPageSize,
    realtimeData: options.realtimeData ?? true,
    faults: options.faults ?? [],
    delayMs: count('delayMs', options.delayMs, 0),
    maxBodyBytes: count('maxBodyBytes', options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 1),
    requestLogLimit: count(
      'requestLogLimit',
      options.requestLogLimit,
      DEFAULT_REQUEST_LOG_LIMIT,
      1,
    ),
    readings: resolveReadings(options.readings),
  };
}
