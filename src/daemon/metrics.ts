/** Prometheus metrics of the daemon, and the 127.0.0.1 endpoint that serves them with /healthz. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** The address the metrics endpoint listens on unless told otherwise: this machine only. */
export const DEFAULT_METRICS_HOST = '127.0.0.1';

/** Where the gauges read their current values when Prometheus scrapes. */
export interface MetricsSources {
  quota(): { limit?: number; remaining?: number };
  /** Seconds since each project's last consistent pass. */
  mirrorLagSeconds(): Map<string, number>;
  outboxDepth(): Record<string, number>;
  realtimeConnected(): boolean;
}

/** The daemon's metrics, in a registry of their own (nothing module-global). */
export class DaemonMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'route' | 'status'>;
  readonly rateLimited: Counter<'code'>;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'projmirror_' });
    this.requests = new Counter({
      name: 'projmirror_requests_total',
      help: 'Requests sent to the service, by route and HTTP status',
      labelNames: ['route', 'status'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'projmirror_rate_limited_total',
      help: '429 answers received, by error code',
      labelNames: ['code'],
      registers,
    });
    new Gauge({
      name: 'projmirror_quota_limit',
      help: 'Daily request quota, as the service last reported it',
      registers,
      collect() {
        const limit = sources.quota().limit;
        if (limit !== undefined) this.set(limit);
      },
    });
    new Gauge({
      name: 'projmirror_quota_remaining',
      help: 'Requests left in the quota day, as the service last reported it',
      registers,
      collect() {
        const remaining = sources.quota().remaining;
        if (remaining !== undefined) this.set(remaining);
      },
    });
    new Gauge({
      name: 'projmirror_mirror_lag_seconds',
      help: "Seconds since each project's last consistent pass",
      labelNames: ['project'],
      registers,
      collect() {
        this.reset();
        for (const [project, lag] of sources.mirrorLagSeconds()) this.set({ project }, lag);
      },
    });
    new Gauge({
      name: 'projmirror_outbox_items',
      help: 'Outbox items by state',
      labelNames: ['state'],
      registers,
      collect() {
        this.reset();
        for (const [state, count] of Object.entries(sources.outboxDepth()))
          this.set({ state }, count);
      },
    });
    new Gauge({
      name: 'projmirror_realtime_connected',
      help: '1 while the realtime channel is connected',
      registers,
      collect() {
        this.set(sources.realtimeConnected() ? 1 : 0);
      },
    });
  }

  /** Counts one response of the service (status 0 for no answer). */
  recordResponse(route: string, status: number, code?: string): void {
    this.requests.inc({ route, status: String(status) });
    if (status === 429) this.rateLimited.inc({ code: code ?? 'unknown' });
  }
}

/** A running metrics endpoint. */
export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** Serves `/metrics` and `/healthz` on 127.0.0.1:`port` (0 picks a free port). */
export async function startMetricsServer(
  metrics: DaemonMetrics,
  port: number,
  health: () => { ok: boolean; detail: Record<string, unknown> },
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
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
