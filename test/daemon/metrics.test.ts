import { describe, expect, it, onTestFinished } from 'vitest';
import { DaemonMetrics, startMetricsServer } from '../../src/daemon/metrics.js';

describe('metrics endpoint', () => {
  it('serves the named metrics, standard Node metrics and /healthz', async () => {
    let connected = true;
    const passAt = Date.parse('2026-11-22T10:00:00Z');
    const metrics = new DaemonMetrics(
      {
        quota: () => [
          { token: 'client', limit: 5000, remaining: 4321 },
          { token: 'team', limit: 5000, remaining: 17 },
        ],
        projectTimes: async () => [
          { projectId: 'p_1', lastPassAt: passAt, lastChangeAt: passAt + 1500 },
          { projectId: 'p_2', lastPassAt: undefined, lastChangeAt: undefined },
        ],
        outboxDepth: async () => ({ pending: 2, failed: 1 }),
        realtimeConnected: () => connected,
        storeQueue: () => ({ depth: 3, oldestAgeMs: 12_500 }),
      },
      { version: '9.8.7' },
    );
    metrics.recordResponse('listTasks', 200, 40);
    metrics.recordResponse('listTasks', 200, 300);
    metrics.recordResponse('listTasks', 429, 5, 'rate_limited');
    metrics.recordResponse('getTask', 429, 5, 'quota_exceeded');
    metrics.recordResponse('getTask', 429, 5, 'Not a {label}');
    metrics.recordResponse('getTask', 429, 5);
    metrics.recordResponse('listTasks', 200, 40, undefined, 'team');
    const server = await startMetricsServer(metrics, { host: '127.0.0.1', port: 0 }, () => ({
      ok: connected,
      detail: { connected },
    }));
    onTestFinished(() => server.close());
    const base = `http://127.0.0.1:${server.port}`;

    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toContain(
      'projmirror_requests_total{route="listTasks",status="200",token="default"} 2',
    );
    expect(text).toContain(
      'projmirror_requests_total{route="listTasks",status="200",token="team"} 1',
    );
    expect(text).toContain('projmirror_rate_limited_total{code="rate_limited",token="default"} 1');
    expect(text).toContain(
      'projmirror_rate_limited_total{code="quota_exceeded",token="default"} 1',
    );
    expect(text).toContain('projmirror_rate_limited_total{code="other",token="default"} 1');
    expect(text).toContain('projmirror_rate_limited_total{code="none",token="default"} 1');
    expect(text).toContain(
      'projmirror_request_duration_seconds_bucket{le="0.05",route="listTasks"} 3',
    );
    expect(text).toContain(
      'projmirror_request_duration_seconds_bucket{le="0.5",route="listTasks"} 4',
    );
    expect(text).toContain('projmirror_request_duration_seconds_count{route="getTask"} 3');
    expect(text).toContain(
      `projmirror_build_info{version="9.8.7",nodejs="${process.versions.node}"} 1`,
    );
    expect(text).toContain('projmirror_quota_limit{token="client"} 5000');
    expect(text).toContain('projmirror_quota_remaining{token="client"} 4321');
    expect(text).toContain('projmirror_quota_remaining{token="team"} 17');
    expect(text).toContain(
      `projmirror_last_consistent_pass_timestamp_seconds{project="p_1"} ${passAt / 1000}`,
    );
    expect(text).toContain(
      `projmirror_last_change_applied_timestamp_seconds{project="p_1"} ${passAt / 1000 + 1.5}`,
    );
    expect(text).not.toContain('project="p_2"');
    expect(text).toContain('projmirror_outbox_items{state="pending"} 2');
    expect(text).toContain('projmirror_realtime_connected 1');
    expect(text).toContain('projmirror_store_queue_depth 3');
    expect(text).toContain('projmirror_store_oldest_unit_age_seconds 12.5');
    // Node's default metrics under their standard names, so stock dashboards find them.
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).not.toContain('projmirror_process_');
    expect(text).not.toContain('projmirror_nodejs_');

    const healthy = await fetch(`${base}/healthz`);
    expect(healthy.status).toBe(200);
    connected = false;
    const unhealthy = await fetch(`${base}/healthz`);
    expect(unhealthy.status).toBe(503);
    expect(await unhealthy.json()).toEqual({ ok: false, connected: false });
    expect((await fetch(`${base}/other`)).status).toBe(404);
  });

  it('listens on the host it is given', async () => {
    const metrics = new DaemonMetrics(
      {
        quota: () => [],
        projectTimes: async () => [],
        outboxDepth: async () => ({}),
        realtimeConnected: () => false,
        storeQueue: () => ({ depth: 0, oldestAgeMs: 0 }),
      },
      { version: '0.0.0' },
    );
    const server = await startMetricsServer(metrics, { host: '127.0.0.2', port: 0 }, () => ({
      ok: true,
      detail: {},
    }));
    onTestFinished(() => server.close());
    expect((await fetch(`http://127.0.0.2:${server.port}/healthz`)).status).toBe(200);
    await expect(fetch(`http://127.0.0.1:${server.port}/healthz`)).rejects.toThrow();
  });
});
