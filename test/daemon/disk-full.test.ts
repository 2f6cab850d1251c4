/**
 * A full disk is a state (issue 38): the real daemon against the real simulator, over a mirror
 * whose connection is capped by `PRAGMA max_page_count` at its size, so that it fills during
 * event writes. The daemon says so (one warning, `diskFull`, the metrics), nothing is corrupt,
 * and once the cap is raised the daemon converges on its own (the retry scaled from a minute to
 * 300 ms), saying once that the disk has room again.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DaemonMetrics } from '../../src/daemon/metrics.js';
import { captureLogger } from '../fixtures/capture-log.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { checkIntegrity, differences } from '../reliability/helpers.js';
import { eventually, startTestDaemon } from './fixtures.js';

describe('a mirror whose disk fills during event writes', () => {
  it('says so once, rolls each write back whole, and converges once there is room', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: [50] });
    const { logger, lines } = captureLogger('info');
    const { daemon, db } = await startTestDaemon(sim, {
      daemon: { logger, diskFullRetryMs: 300 },
    });
    const file = db.name;
    const reader = new Database(file, { readonly: true });
    try {
      await eventually(() => daemon.connected && differences(reader, sim).length === 0, 10_000);
      const pages = db.pragma('page_count', { simple: true }) as number;
      db.pragma(`max_page_count = ${pages}`);
      const metrics = new DaemonMetrics(daemon.metricsSources(), { version: 'test' });

      // Tasks with long names until a write needs a page the cap refuses.
      let n = 0;
      await eventually(async () => {
        for (let i = 0; i < 20; i++) {
          sim.service.createTask('p_1', { name: `filling ${(n += 1)} ${'x'.repeat(900)}` });
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
        return daemon.diskFull;
      }, 20_000);
      const text = await metrics.registry.metrics();
      expect(text).toContain('projmirror_disk_full 1');
      expect(text).toMatch(/projmirror_disk_full_writes_total [1-9]/);
      // More refused writes meanwhile: still one warning (at most one a minute).
      for (let i = 0; i < 10; i++) sim.service.createTask('p_1', { name: `more ${i}` });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(daemon.diskFull).toBe(true);
      // Not a line per refused write, nor per retried pass (each 300 ms here): one in all.
      expect(lines.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([
        'the disk is full: writes are refused and tried again each minute',
      ]);
      expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
      expect(differences(reader, sim).length).toBeGreaterThan(0);

      // Room again: the projects whose writes were refused are passed, and the mirror converges.
      db.pragma('max_page_count = 1073741823');
      await eventually(() => differences(reader, sim).length === 0, 20_000);
      await eventually(() => !daemon.diskFull, 5_000);
      expect(lines.filter((l) => l.msg === 'the disk has room again')).toHaveLength(1);
      expect(lines.filter((l) => l.level >= 40)).toHaveLength(1);
      expect(await metrics.registry.metrics()).toContain('projmirror_disk_full 0');
      expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
    } finally {
      reader.close();
    }
  }, 60_000);
});

describe('a mirror whose disk fills during a backfill', () => {
  it('says so once over the retried passes, keeps the file whole, and converges', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: [0] });
    for (let i = 0; i < 300; i++) {
      sim.service.createTask('p_1', { name: `backfilled ${i} ${'y'.repeat(900)}` });
    }
    const { logger, lines } = captureLogger('info');
    const { daemon, db } = await startTestDaemon(sim, {
      daemon: { logger, diskFullRetryMs: 300 },
      beforeStart: (handle) => {
        // Room for the daemon's own state, not for the project's tasks.
        const pages = handle.pragma('page_count', { simple: true }) as number;
        handle.pragma(`max_page_count = ${pages + 20}`);
      },
    });
    const file = db.name;
    const reader = new Database(file, { readonly: true });
    try {
      await eventually(() => daemon.diskFull, 10_000);
      const passes = () => sim.requestLog.count({ route: 'listTasks' });
      const before = passes();
      await eventually(() => passes() >= before + 3, 10_000);
      expect(daemon.diskFull).toBe(true);
      expect(reader.prepare('SELECT count(*) FROM tasks').pluck().get()).toBe(0);
      expect(lines.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([
        'the disk is full: writes are refused and tried again each minute',
      ]);
      expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });

      db.pragma('max_page_count = 1073741823');
      await eventually(() => differences(reader, sim).length === 0, 20_000);
      await eventually(() => !daemon.diskFull, 5_000);
      expect(lines.filter((l) => l.msg === 'the disk has room again')).toHaveLength(1);
      expect(lines.filter((l) => l.level >= 40)).toHaveLength(1);
      expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
    } finally {
      reader.close();
    }
  }, 60_000);
});
