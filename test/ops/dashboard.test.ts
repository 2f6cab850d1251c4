import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DaemonMetrics } from '../../src/daemon/metrics.js';

interface Panel {
  title: string;
  targets: { expr: string }[];
}

describe('docs/grafana-dashboard.json', () => {
  it('is a dashboard whose every query names metrics the daemon serves', async () => {
    const dashboard = JSON.parse(
      readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8'),
    ) as { uid: string; panels: Panel[]; __inputs: { name: string }[] };
    expect(dashboard.__inputs.map((input) => input.name)).toEqual(['DS_PROMETHEUS']);
    const metrics = new DaemonMetrics(
      {
        quota: () => [{ token: 'default', limit: 5000, remaining: 10 }],
        projectTimes: async () => [
          { projectId: 'p_1', lastPassAt: Date.now(), lastChangeAt: Date.now() },
        ],
        outboxDepth: async () => ({ pending: 1 }),
        realtimeConnected: () => true,
        storeQueue: () => ({ depth: 0, oldestAgeMs: 0 }),
      },
      { version: '1.2.3' },
    );
    metrics.recordResponse('listTasks', 429, 10, 'rate_limited');
    const served = new Set(
      (await metrics.registry.getMetricsAsJSON()).flatMap((metric) =>
        String(metric.type) === 'histogram'
          ? [`${metric.name}_bucket`, `${metric.name}_sum`, `${metric.name}_count`]
          : [metric.name],
      ),
    );
    const named = dashboard.panels.flatMap((panel) =>
      panel.targets.flatMap(
        (target) => target.expr.match(/\b(projmirror|process|nodejs)_[a-z0-9_]+/g) ?? [],
      ),
    );
    expect(named.length).toBeGreaterThan(15);
    expect(named.filter((name) => !served.has(name))).toEqual([]);
    const families = [
      'projmirror_last_consistent_pass_timestamp_seconds',
      'projmirror_request_duration_seconds_bucket',
      'projmirror_rate_limited_total',
      'process_resident_memory_bytes',
    ];
    for (const family of families) expect(named).toContain(family);
  });
});
