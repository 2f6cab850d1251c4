/**
 * Prometheus metrics of the daemon, and the endpoint that serves them with /healthz. Node's
 * default metrics keep their standard names (`process_*`, `nodejs_*`) so stock dashboards work.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { WalState } from './wal-watch.js';

/** Buckets of `projmirror_request_duration_seconds`, in seconds (a page of 500 tasks takes ~0.05). */
export const REQUEST_DURATION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];
/**
 * Buckets of `projmirror_change_staleness_seconds`, in seconds: from realtime's second or two to
 * a day of polling-only waits (the bound is hours).
 */
export const CHANGE_STALENESS_BUCKETS = [
  1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 14_400, 28_800, 86_400,
];
/** A service error code becomes a label value only in this shape; anything else is `other`. */
const CODE_LABEL = /^[a-z][a-z0-9_]{0,63}$/;

/** When one project was last consistent and last changed, in ms since the epoch. */
export interface ProjectTimes {
  projectId: string;
  /** End of the last consistent full pass. */
  lastPassAt: number | undefined;
  /** Last write of a change into the project's mirrored rows (a pass, an event or an answer). */
  lastChangeAt: number | undefined;
}

/** One token's quota as last learned, by its label (never its value). */
export interface TokenQuota {
  token: string;
  limit?: number | undefined;
  remaining?: number | undefined;
}

/** The `token` label of a response whose token is not named (one unlabelled token). */
export const UNNAMED_TOKEN = 'default';

/** Where the gauges read their current values when Prometheus scrapes. */
export interface MetricsSources {
  /** Each token's quota. */
  quota(): TokenQuota[];
  /** Read from the store; a store that does not answer in time gives the last known values. */
  projectTimes(): Promise<ProjectTimes[]>;
  outboxDepth(): Promise<Record<string, number>>;
  realtimeConnected(): boolean;
  /** Units of work waiting for the store, and the age of the oldest, in ms. */
  storeQueue(): { depth: number; oldestAgeMs: number };
  /** SQLite's write-ahead log as last checkpointed; undefined before, and on PostgreSQL. */
  wal?(): WalState | undefined;
  /** Whether the database's disk is full, and the writes it refused since the start. */
  disk?(): DiskState;
  /** Each project's place in the poll plan; none when absent. */
  pollPlan?(): PlannedPoll[];
  /** Page polls that turned into a full pass since start. */
  pagePollEscalations?(): number;
}

/** The database's disk as the metrics show it. */
export interface DiskState {
  full: boolean;
  refusedTotal: number;
}

/** One project's estimated change rate, planned interval and expected staleness. */
export interface PlannedPoll {
  projectId: string;
  /** Absent when the plan polls every project alike (realtime up, or no estimate). */
  ratePerHour?: number | undefined;
  intervalMs: number;
  expectedStalenessMs: number;
  /** Its most often polled pages, when the plan polls its pages on their own. */
  hotPages?: readonly { page: number; intervalMs: number }[] | undefined;
}

/** What the metrics say about the build. */
export interface BuildInfo {
  version: string;
}

/** The daemon's metrics, in a registry of their own (nothing module-global). */
export class DaemonMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'route' | 'status' | 'token'>;
  readonly rateLimited: Counter<'code' | 'token'>;
  readonly duration: Histogram<'route'>;
  readonly changeStaleness: Histogram;

  constructor(sources: MetricsSources, build: BuildInfo) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'projmirror_build_info',
      help: 'Always 1; the labels name the running version of projmirror and of Node.js',
      labelNames: ['version', 'nodejs'],
      registers,
    }).set({ version: build.version, nodejs: process.versions.node }, 1);
    this.requests = new Counter({
      name: 'projmirror_requests_total',
      help: 'Requests sent to the service, by route, HTTP status (0: no answer) and token label',
      labelNames: ['route', 'status', 'token'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'projmirror_rate_limited_total',
      help: "429 answers received, by the service's error code and token label",
      labelNames: ['code', 'token'],
      registers,
    });
    this.duration = new Histogram({
      name: 'projmirror_request_duration_seconds',
      help: 'From sending a request to reading the whole answer, by route',
      labelNames: ['route'],
      buckets: REQUEST_DURATION_BUCKETS,
      registers,
    });
    this.changeStaleness = new Histogram({
      name: 'projmirror_change_staleness_seconds',
      help: "From a change's updatedAt (as the service sent it) to the mirror writing it, in seconds",
      buckets: CHANGE_STALENESS_BUCKETS,
      registers,
    });
    quotaGauges(sources, registers);
    projectGauges(sources, registers);
    planGauges(sources, registers);
    new Gauge({
      name: 'projmirror_outbox_items',
      help: 'Outbox items by state',
      labelNames: ['state'],
      registers,
      async collect() {
        const depth = await sources.outboxDepth();
        this.reset();
        for (const [state, count] of Object.entries(depth)) this.set({ state }, count);
      },
    });
    new Gauge({
      name: 'projmirror_store_queue_depth',
      help: 'Units of work waiting for the database (asked, not yet answered)',
      registers,
      collect() {
        this.set(sources.storeQueue().depth);
      },
    });
    new Gauge({
      name: 'projmirror_store_oldest_unit_age_seconds',
      help: 'How long the oldest unit of work waiting for the database has waited, in seconds',
      registers,
      collect() {
        this.set(sources.storeQueue().oldestAgeMs / 1000);
      },
    });
    walGauges(sources, registers);
    diskMetrics(sources, registers);
    new Gauge({
      name: 'projmirror_realtime_connected',
      help: '1 while the realtime channel is connected',
      registers,
      collect() {
        this.set(sources.realtimeConnected() ? 1 : 0);
      },
    });
  }

  /** One change written into the mirror, `ms` after the service's `updatedAt` says it was made. */
  recordStaleness(ms: number): void {
    this.changeStaleness.observe(ms / 1000);
  }

  /**
   * Counts one response of the service (status 0 for no answer), with its duration, code and
   * the label of the token that sent it.
   */
  recordResponse(
    route: string,
    status: number,
    ms: number,
    code?: string,
    token: string = UNNAMED_TOKEN,
  ): void {
    this.requests.inc({ route, status: String(status), token });
    this.duration.observe({ route }, ms / 1000);
    if (status === 429) {
      const label = code === undefined ? 'none' : CODE_LABEL.test(code) ? code : 'other';
      this.rateLimited.inc({ code: label, token });
    }
  }
}

/** Per token: its quota and what is left of it, labelled with the token's label. */
function quotaGauges(sources: MetricsSources, registers: Registry[]): void {
  const figure = (key: 'limit' | 'remaining') =>
    function collect(this: Gauge<'token'>) {
      this.reset();
      for (const quota of sources.quota()) {
        const value = quota[key];
        if (value !== undefined) this.set({ token: quota.token }, value);
      }
    };
  new Gauge({
    name: 'projmirror_quota_limit',
    help: 'Daily request quota of each token, as the service last reported it',
    labelNames: ['token'],
    registers,
    collect: figure('limit'),
  });
  new Gauge({
    name: 'projmirror_quota_remaining',
    help: 'Requests left in the quota day of each token, as the service last reported it',
    labelNames: ['token'],
    registers,
    collect: figure('remaining'),
  });
}

/** Per project, times as Unix seconds: staleness is `time() - ...` in PromQL, at query time. */
function projectGauges(sources: MetricsSources, registers: Registry[]): void {
  const times = (key: 'lastPassAt' | 'lastChangeAt') =>
    async function collect(this: Gauge<'project'>) {
      const projects = await sources.projectTimes();
      this.reset();
      for (const project of projects) {
        const at = project[key];
        if (at !== undefined) this.set({ project: project.projectId }, at / 1000);
      }
    };
  new Gauge({
    name: 'projmirror_last_consistent_pass_timestamp_seconds',
    help: "End of each project's last consistent full pass, in Unix seconds",
    labelNames: ['project'],
    registers,
    collect: times('lastPassAt'),
  });
  new Gauge({
    name: 'projmirror_last_change_applied_timestamp_seconds',
    help: "Last write of a change into each project's mirror (pass, event or outbox answer), in Unix seconds",
    labelNames: ['project'],
    registers,
    collect: times('lastChangeAt'),
  });
}

/** SQLite's write-ahead log: its size, and how long since a checkpoint copied all of it. */
function walGauges(sources: MetricsSources, registers: Registry[]): void {
  new Gauge({
    name: 'projmirror_wal_bytes',
    help: "Size of SQLite's write-ahead log file after the daemon's last checkpoint, in bytes",
    registers,
    collect() {
      const wal = sources.wal?.();
      if (wal !== undefined) this.set(wal.walBytes);
    },
  });
  new Gauge({
    name: 'projmirror_wal_last_complete_checkpoint_age_seconds',
    help: 'Seconds since a checkpoint last copied the whole write-ahead log (a reader holding a snapshot blocks it)',
    registers,
    collect() {
      const wal = sources.wal?.();
      if (wal !== undefined) this.set(wal.lastCompleteAgeMs / 1000);
    },
  });
}

/** A full disk: whether it is full now, and the writes it refused. */
function diskMetrics(sources: MetricsSources, registers: Registry[]): void {
  new Gauge({
    name: 'projmirror_disk_full',
    help: "1 while the database's disk is full (its last write was refused for it)",
    registers,
    collect() {
      this.set(sources.disk?.().full === true ? 1 : 0);
    },
  });
  new Counter({
    name: 'projmirror_disk_full_writes_total',
    help: 'Writes (units of work) the database refused for a full disk',
    registers,
    collect() {
      this.reset();
      this.inc(sources.disk?.().refusedTotal ?? 0);
    },
  });
}

/** Per project, the poll plan: estimated change rate, planned interval, expected staleness. */
function planGauges(sources: MetricsSources, registers: Registry[]): void {
  const figure = (pick: (poll: PlannedPoll) => number | undefined) =>
    function collect(this: Gauge<'project'>) {
      this.reset();
      for (const poll of sources.pollPlan?.() ?? []) {
        const value = pick(poll);
        if (value !== undefined) this.set({ project: poll.projectId }, value);
      }
    };
  new Gauge({
    name: 'projmirror_project_changes_per_hour',
    help: "Each project's estimated change rate, as the poll plan uses it",
    labelNames: ['project'],
    registers,
    collect: figure((poll) => poll.ratePerHour),
  });
  new Gauge({
    name: 'projmirror_project_poll_interval_seconds',
    help: 'How often the poll plan polls each project, in seconds',
    labelNames: ['project'],
    registers,
    collect: figure((poll) => poll.intervalMs / 1000),
  });
  new Gauge({
    name: 'projmirror_hot_page_poll_interval_seconds',
    help: 'How often the poll plan polls the hot pages of each project (its most often polled), in seconds',
    labelNames: ['project', 'page'],
    registers,
    collect() {
      this.reset();
      for (const poll of sources.pollPlan?.() ?? []) {
        for (const hot of poll.hotPages ?? []) {
          this.set({ project: poll.projectId, page: String(hot.page) }, hot.intervalMs / 1000);
        }
      }
    },
  });
  new Counter({
    name: 'projmirror_page_poll_escalations_total',
    help: 'Single-page polls that could not be applied alone (a task created or deleted, rows shifted) and turned into a full pass',
    registers,
    collect() {
      this.reset();
      this.inc(sources.pagePollEscalations?.() ?? 0);
    },
  });
  new Gauge({
    name: 'projmirror_project_expected_staleness_seconds',
    help: "The mean wait of one of a project's changes until a poll sees it (half its interval), in seconds",
    labelNames: ['project'],
    registers,
    collect: figure((poll) => poll.expectedStalenessMs / 1000),
  });
}

/** What /healthz answers: 200 when ok, else 503; `detail` goes into its JSON body. */
export type HealthCheck = () => { ok: boolean; detail: Record<string, unknown> };

/** A running metrics endpoint. */
export interface MetricsServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

/** Serves `/metrics` and `/healthz` on `host`:`port` (0 picks a free port). */
export async function startMetricsServer(
  metrics: DaemonMetrics,
  listen: { host: string; port: number },
  health: HealthCheck,
): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET') {
      response.writeHead(405).end();
    } else if (path === '/metrics') {
      metrics.registry.metrics().then(
        (text) =>
          response.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(text),
        () => response.writeHead(500).end(),
      );
    } else if (path === '/healthz') {
      const { ok, detail } = health();
      response
        .writeHead(ok ? 200 : 503, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ ok, ...detail }));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  return {
    host: listen.host,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
