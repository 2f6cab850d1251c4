import { describe, expect, it, onTestFinished } from 'vitest';
import { DaemonMetrics, startMetricsServer } from '../../src/daemon/metrics.js';

describe('metrics endpoint', () => {
  it('serves the named metrics and /healthz on 127.0.0.1', async () => {
    let connected = true;
    const metrics = new DaemonMetrics({
      quota: () => ({ limit: 5000, remaining: 4321 }),
      mirrorLagSeconds: () => new Map([['p_1', 12]]),
      outboxDepth: () => ({ pending: 2, failed: 1 }),
      realtimeConnected: () => connected,
    });
    metrics.recordResponse('listTasks', 200);
    metrics.recordResponse('listTasks', 429, 'rate_limited');
    const server = await startMetricsServer(metrics, 0, () => ({
      ok: connected,
      detail: { connected },
    }));
    onTestFinished(() => server.close());
    const base = `http://127.0.0.1:${server.port}`;

    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toContain('projmirror_requests_total{route="listTasks",status="200"} 1');
    expect(text).toContain('projmirror_rate_limited_total{code="rate_limited"} 1');
    expect(text).toContain('projmirror_quota_limit 5000');
    expect(text).toContain('projmirror_quota_remaining 4321');
    expect(text).toContain('projmirror_mirror_lag_seconds{project="p_1"} 12');
    expect(text).toContain('projmirror_outbox_items{state="pending"} 2');
    expect(text).toContain('projmirror_realtime_connected 1');

    const healthy = await fetch(`${base}/healthz`);
    expect(healthy.status).toBe(200);
    connected = false;
    const unhealthy = await fetch(`${base}/healthz`);
    expect(unhealthy.status).toBe(503);
    expect(await unhealthy.json()).toEqual({ ok: false, connected: false });
    expect((await fetch(`${base}/other`)).status).toBe(404);
  });
});
